import { context, ROOT_CONTEXT, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import type { EventEnvelope } from '@payments/events';
import { contextFromHeaders, injectTraceHeaders, markFailed, tracedContextOf, tracer } from '@payments/tracing';
import type { Message } from 'kafkajs';
import type { ValidMessage } from './consumer-message.decoder';

/**
 * Trace context across the outbox and Kafka (callers check tracingEnabled() first; off, none of this runs):
 *
 * - written: the outbox row's headers keep the writer's context (the command or consumed event it came from);
 * - relayed: a producer span per event, child of that stored context, replaces it in the published headers;
 * - consumed: a consumer span per event, child of the producer span, around the handler.
 *
 * Handlers that write in `beforeCommit` (several events' effects in one statement) run outside any one event's
 * span: an event they write takes the context of the consumed event that caused it (causation_id), found here.
 */
const consumedContexts = new Map<string, Context>();

/** The trace headers to store with an outbox row for `envelope` (added to `headers`). */
export function addOutboxTraceHeaders(headers: Record<string, string>, envelope: EventEnvelope<unknown>): void {
  const cause = envelope.causation_id === null ? undefined : consumedContexts.get(envelope.causation_id);
  injectTraceHeaders(headers, cause ?? context.active());
}

/**
 * Starts a producer span for each message that carries a stored trace context and puts the span's context in its
 * headers in place of the stored one. A message without context (written while tracing was off, or by a job
 * outside any trace) is sent as it is: a trace of its own per relayed event would only be noise.
 */
export function startPublishSpans(topic: string, messages: Message[]): Span[] {
  const spans: Span[] = [];
  for (const message of messages) {
    const headers = message.headers as Record<string, string> | undefined;
    if (headers?.traceparent === undefined) continue;
    const parent = contextFromHeaders(headers);
    const span = tracer().startSpan(
      `publish ${topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': topic,
          'messaging.message.id': headers['event-id'] ?? '',
          'payments.event_type': headers['event-type'] ?? '',
          'messaging.batch.message_count': messages.length,
        },
      },
      parent,
    );
    delete headers.tracestate;
    injectTraceHeaders(headers, trace.setSpan(ROOT_CONTEXT, span));
    spans.push(span);
  }
  return spans;
}

export function endSpans(spans: readonly Span[], error?: unknown): void {
  for (const span of spans) {
    if (error !== undefined) markFailed(span, error);
    span.end();
  }
}

/** A consumer span for one event, child of its producer's; its context is where the handler runs. */
export class ConsumeSpan {
  readonly span: Span;
  readonly context: Context;

  /** The span for `item`, or undefined when it carries no trace context (its trace was not sampled). */
  static of(item: ValidMessage, attempt: number): ConsumeSpan | undefined {
    const parent = tracedContextOf(item.headers);
    return parent && new ConsumeSpan(item, attempt, parent);
  }

  private constructor(
    private readonly item: ValidMessage,
    attempt: number,
    parent: Context,
  ) {
    this.span = tracer().startSpan(
      `process ${item.where.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'process',
          'messaging.destination.name': item.where.topic,
          'messaging.destination.partition.id': String(item.where.partition),
          'messaging.kafka.offset': Number(item.where.offset),
          'messaging.message.id': item.envelope.id,
          'payments.event_type': item.envelope.type,
          'payments.attempt': attempt,
        },
      },
      parent,
    );
    this.context = trace.setSpan(parent, this.span);
    consumedContexts.set(item.envelope.id, this.context);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(this.context, fn);
  }

  /** Once the transaction is over (committed or not). */
  end(error?: unknown): void {
    consumedContexts.delete(this.item.envelope.id);
    if (error !== undefined) markFailed(this.span, error);
    this.span.end();
  }
}
