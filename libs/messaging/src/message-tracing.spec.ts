import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { newEnvelope } from '@payments/events';
import { startInMemoryTracing, type InMemoryTracing } from '@payments/testing';
import { tracer } from '@payments/tracing';
import type { Message } from 'kafkajs';
import type { ValidMessage } from './consumer-message.decoder';
import { addOutboxTraceHeaders, ConsumeSpan, endSpans, startPublishSpans } from './message-tracing';
import { envelopeHeaders } from './outbox.writer';

// The trace context across the outbox and Kafka: kept with the row when written, replaced by the publishing span's
// when relayed, and the parent of the consumer's span.
describe('trace context in outbox rows and Kafka headers', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => (tracing = startInMemoryTracing()));
  afterEach(() => tracing.stop());

  const envelope = (causation: string | null = null) =>
    newEnvelope({
      type: 'payment_intent.created',
      aggregate_id: 'pi_1',
      aggregate_type: 'payment_intent',
      sequence: 1,
      merchant_id: 'mer_1',
      environment: 'test',
      correlation_id: 'req_1',
      causation_id: causation,
      data: {},
    } as never);

  const consumed = (headers: Record<string, string>): ValidMessage => {
    const event = envelope();
    return {
      ok: true,
      message: { key: Buffer.from('pi_1'), value: null, headers, offset: '7', timestamp: '0', attributes: 0 } as never,
      where: { topic: 'ns.sessions.events.v1', partition: 0, offset: '7' },
      headers,
      envelope: event as ValidMessage['envelope'],
    };
  };

  it('writer → relay → consumer: the consumer span is a child of the publishing span, itself a child of the writer', async () => {
    const headers = envelopeHeaders(envelope());
    const writer = tracer().startSpan('command');
    context.with(trace.setSpan(ROOT_CONTEXT, writer), () => addOutboxTraceHeaders(headers, envelope()));
    writer.end();
    expect(headers.traceparent).toBe(`00-${writer.spanContext().traceId}-${writer.spanContext().spanId}-01`);
    expect(headers['event-id']).toBeDefined();

    // Relayed later, outside the writer's context.
    const message: Message = { key: 'pi_1', value: '{}', headers: { ...headers } };
    const spans = startPublishSpans('ns.sessions.events.v1', [message]);
    endSpans(spans);
    const publish = tracing.span('publish ns.sessions.events.v1');
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(publish.parentSpanContext?.spanId).toBe(writer.spanContext().spanId);
    expect(publish.spanContext().traceId).toBe(writer.spanContext().traceId);
    const published = message.headers as Record<string, string>;
    expect(published.traceparent).toBe(`00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`);

    const consume = ConsumeSpan.of(consumed(published), 1)!;
    await consume.run(async () => expect(trace.getSpan(context.active())).toBe(consume.span));
    consume.end();
    const process = tracing.span('process ns.sessions.events.v1');
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(process.attributes['messaging.kafka.offset']).toBe(7);
  });

  it("an event written in beforeCommit (outside the handler's span) takes the context of the event that caused it", () => {
    const producer = tracer().startSpan('publish');
    const headers: Record<string, string> = {};
    context.with(trace.setSpan(ROOT_CONTEXT, producer), () => addOutboxTraceHeaders(headers, envelope()));
    const item = consumed(headers);
    const consume = ConsumeSpan.of(item, 1)!;
    const caused = envelopeHeaders(envelope(item.envelope.id));
    addOutboxTraceHeaders(caused, envelope(item.envelope.id));
    expect(caused.traceparent).toContain(consume.span.spanContext().spanId);
    consume.end();
    // Once that transaction is over, the event id leads nowhere.
    const later: Record<string, string> = {};
    addOutboxTraceHeaders(later, envelope(item.envelope.id));
    expect(later.traceparent).toBeUndefined();
  });

  it('a row without trace context (written while tracing was off) is published as it is, with no span', () => {
    const message: Message = { key: 'pi_1', value: '{}', headers: { 'event-id': 'evt_1' } };
    expect(startPublishSpans('t', [message])).toEqual([]);
    expect(message.headers).toEqual({ 'event-id': 'evt_1' });
  });

  it('a message without trace context (its trace was not sampled) gets no span: unsampled work costs no tracing', () => {
    expect(ConsumeSpan.of(consumed({}), 1)).toBeUndefined();
    expect(tracing.spans()).toEqual([]);
  });

  it("a failed handler marks the event's span failed with the error's type", () => {
    const producer = tracer().startSpan('publish');
    const headers: Record<string, string> = {};
    context.with(trace.setSpan(ROOT_CONTEXT, producer), () => addOutboxTraceHeaders(headers, envelope()));
    ConsumeSpan.of(consumed(headers), 2)!.end(new Error('boom'));
    const span = tracing.span('process ns.sessions.events.v1');
    expect(span.status.code).toBe(2);
    expect(span.attributes['error.type']).toBe('Error');
    expect(span.attributes['payments.attempt']).toBe(2);
  });
});
