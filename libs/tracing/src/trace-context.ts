import { context, isSpanContextValid, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';

/**
 * What the services use to make spans and carry trace context, on @opentelemetry/api alone: with tracing off no
 * provider and no propagator are registered, and callers skip all of it behind tracingEnabled().
 */

let enabled = false;

/** Whether this process exports traces (startTracing found an endpoint). Hot paths check it before any work. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** For startTracing, and for tests that register their own provider and propagator. */
export function setTracingEnabled(value: boolean): void {
  enabled = value;
}

/** The W3C trace-context headers as they travel: in command frames, Kafka headers and stored rows. */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

export const TRACE_HEADER_NAMES = ['traceparent', 'tracestate'] as const;

export function tracer(): Tracer {
  return trace.getTracer('payments');
}

/** Writes `ctx`'s trace context (traceparent, tracestate) into `carrier`; nothing when no span is in it. */
export function injectTraceHeaders(carrier: Record<string, unknown>, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier);
}

/** The trace context of `ctx` (default: the active one) as headers, or undefined when there is none. */
export function traceHeadersOf(ctx: Context = context.active()): TraceHeaders | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/**
 * The remote parent carried by `carrier`, or undefined when it carries none. Trace context travels only with work
 * that is recorded (unsampled requests propagate nothing), so a hop without it makes no span at all: that keeps
 * tracing's cost to the sampled share of the traffic.
 */
export function tracedContextOf(carrier: { readonly traceparent?: unknown; readonly tracestate?: unknown } | null | undefined): Context | undefined {
  if (!carrier || typeof carrier.traceparent !== 'string') return undefined;
  const parent = contextFromHeaders(carrier);
  // An unreadable traceparent (an old frame, a foreign producer) counts as none.
  const spanContext = trace.getSpanContext(parent);
  return spanContext && isSpanContextValid(spanContext) ? parent : undefined;
}

/** Whether `ctx` holds a span being recorded (a sampled trace): only then does a hop start spans and send context. */
export function recordingIn(ctx: Context = context.active()): boolean {
  return trace.getSpan(ctx)?.isRecording() === true;
}

/**
 * The remote parent carried by `carrier` (any object with traceparent/tracestate string fields); ROOT_CONTEXT when
 * it carries none or an unreadable one (an old frame, a message from a service without tracing).
 */
export function contextFromHeaders(carrier: { readonly traceparent?: unknown; readonly tracestate?: unknown } | null | undefined): Context {
  if (!carrier || typeof carrier.traceparent !== 'string') return ROOT_CONTEXT;
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (typeof carrier.tracestate === 'string') headers.tracestate = carrier.tracestate;
  return propagation.extract(ROOT_CONTEXT, headers);
}

/**
 * Runs `fn` in a new span under `parent` and ends it when `fn` settles; a throw marks the span failed with the
 * error's type only (messages can hold customers' data, see the log redaction).
 */
export async function inSpan<T>(name: string, options: SpanOptions, parent: Context, fn: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, options, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export function markFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.name : typeof error;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** trace_id and span_id of the active span, for a log line (pino's mixin); empty when none is active. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
