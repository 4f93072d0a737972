// The OpenTelemetry SDK and instrumentations. Only startTracing requires this file, and only when an endpoint is
// set: with tracing off none of these modules is loaded.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { isTracingSuppressed, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';
import { context, ROOT_CONTEXT, SpanKind, type Context } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TracingSettings } from './tracing-settings';

export interface SdkOptions {
  /**
   * The service answers the public (the gateway): a traceparent a caller sends is followed for the trace id, but
   * whether it is recorded is our ratio's decision, not the caller's (a client could otherwise have every request
   * of its own recorded).
   */
  publicIngress: boolean;
  /** Spans of Fastify's routes and hooks (@fastify/otel), for the service that serves its API with Fastify. */
  fastify: boolean;
}

/** Probes and scrapes on the operations port: a root span each would only be noise (and cost). */
const UNTRACED_PATHS = /^\/(health|metrics|asyncapi\.json)(\/|\?|$)/;
/** A webhook to a merchant: the attempt has its own span, and our trace context is not theirs to receive. */
const WEBHOOK_SIGNATURE = /^(x-)?service-signature$/i;

/**
 * OTEL_NODE_DISABLED_INSTRUMENTATIONS (comma-separated: http, undici, pg, ioredis, fastify) leaves those out, to
 * trade detail for cost; the spans of our own (commands, events, webhook attempts) are always made.
 */
function disabledInstrumentations(): Set<string> {
  return new Set((process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean));
}

/**
 * Whether a request to the public service is recorded, decided before any span exists: a request left out runs with
 * tracing suppressed, so it makes no span, computes no attributes and sends no trace context on (every later hop
 * then skips tracing too). A caller's traceparent gives the trace id, and the decision is the ratio's on that id, so
 * a client sending one trace id with its create and its simulate gets both recorded or neither; whether the caller
 * recorded it does not decide (a client could otherwise have every request of its own recorded).
 */
export function ingressSampled(ratio: TraceIdRatioBasedSampler, share: number, traceparent: string | string[] | undefined): boolean {
  const traceId = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim())?.[1] : undefined;
  if (traceId === undefined || /^0+$/.test(traceId)) return Math.random() < share;
  return ratio.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}/;

/**
 * The public service's sampler for spans without a recorded parent: an incoming request that reached the SDK was
 * chosen by ingressSampled, so its server span is recorded; any other such span is left out (the public service
 * starts no trace of its own outside a request).
 */
class IngressChosen implements Sampler {
  shouldSample(_context: Context, _traceId: string, _name: string, kind: SpanKind): SamplingResult {
    return { decision: kind === SpanKind.SERVER ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return 'IngressChosen';
  }
}

/**
 * Parent-based everywhere: a span under a recorded parent is recorded. Spans without a recorded parent: in internal
 * services the ratio decides (none are made there in practice: untraced work makes no spans); in the public service,
 * when the ingress decides (the HTTP instrumentation is on), its request span is recorded and nothing else; without
 * it, the ratio decides on the first span of a request.
 */
export function samplerFor(share: number, publicIngress: boolean, ingressDecides: boolean): Sampler {
  const ratio = new TraceIdRatioBasedSampler(share);
  if (!publicIngress) return new ParentBasedSampler({ root: ratio });
  if (!ingressDecides) return new ParentBasedSampler({ root: ratio, remoteParentSampled: ratio, remoteParentNotSampled: ratio });
  const chosen = new IngressChosen();
  return new ParentBasedSampler({ root: chosen, remoteParentSampled: new AlwaysOnSampler(), remoteParentNotSampled: chosen });
}

export function startSdk(settings: TracingSettings, options: SdkOptions): { shutdown(): Promise<void> } {
  const disabled = disabledInstrumentations();
  const ratio = new TraceIdRatioBasedSampler(settings.ratio);
  const sampler = samplerFor(settings.ratio, options.publicIngress, !disabled.has('http'));
  const instrumentations: Array<Instrumentation | false> = [
    !disabled.has('http') && new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) =>
        UNTRACED_PATHS.test(request.url ?? '') || (options.publicIngress && !ingressSampled(ratio, settings.ratio, request.headers.traceparent)),
      // Outgoing calls of our own (e.g. to a provider) belong to a request's trace; alone they are not worth one.
      requireParentforOutgoingSpans: true,
      // The Request-Id the merchant sees (echoed or issued by the gateway) finds the trace.
      applyCustomAttributesOnSpan: (span, request, response) => {
        const requestId = (response as ServerResponse).getHeader?.('request-id') ?? (request as IncomingMessage & { id?: unknown }).id;
        if (typeof requestId === 'string') span.setAttribute('payments.request_id', requestId);
      },
    }),
    !disabled.has('undici') && new UndiciInstrumentation({
      requireParentforSpans: true,
      ignoreRequestHook: (request) => hasWebhookSignature(request.headers),
    }),
    // Background pollers (the relay, the delivery worker) query all the time; only queries of traced work count.
    !disabled.has('pg') && new PgInstrumentation({ requireParentSpan: true }),
    !disabled.has('ioredis') && new IORedisInstrumentation({ requireParentSpan: true }),
  ];
  if (options.fastify && !disabled.has('fastify')) {
    // The route's span and its handler's; a span per lifecycle hook (a dozen per request here) cost more than it told.
    // A request the ingress left out runs with tracing suppressed (its context follows it through every await), and
    // @fastify/otel is told to pass it over: otherwise it would still make its (non-recording) spans, and the pg and
    // ioredis instrumentations, finding a span, would wrap every query of the request.
    const fastify = new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      instrumentHooks: false,
      ignorePaths: (route) => UNTRACED_PATHS.test(route.url) || isTracingSuppressed(context.active()),
    });
    // @fastify/otel 0.21 is built on @opentelemetry/instrumentation 0.222 (its own copy): the same interface.
    instrumentations.push(fastify as unknown as Instrumentation);
  }
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    sampler,
    traceExporter: settings.protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter(),
    instrumentations: instrumentations.filter((i): i is Instrumentation => i !== false),
    // traceparent and tracestate only (no baggage): what the AsyncAPI document promises consumers.
    textMapPropagator: new W3CTraceContextPropagator(),
    // Traces only: metrics are Prometheus' (the operations port), logs are JSON lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return sdk;
}

function hasWebhookSignature(headers: string | Array<string | string[]>): boolean {
  if (typeof headers === 'string') return headers.split('\r\n').some((line) => WEBHOOK_SIGNATURE.test(line.slice(0, line.indexOf(':'))));
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (typeof name === 'string' && WEBHOOK_SIGNATURE.test(name)) return true;
  }
  return false;
}
