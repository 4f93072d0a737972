import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { randomBytes, randomUUID } from 'node:crypto';
import { startStack, TestTraceCollector, TestWebhookReceiver, waitFor, type CollectedSpan, type Stack, type TestMerchant } from '@payments/testing';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const RATIO = 0.5;

/** A trace id the stack's ratio records (true) or leaves out (false): the same decision the gateway makes. */
function traceIdSampled(sampled: boolean): string {
  const sampler = new TraceIdRatioBasedSampler(RATIO);
  for (;;) {
    const traceId = randomBytes(16).toString('hex');
    if ((sampler.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED) === sampled) return traceId;
  }
}

// The services run as processes with tracing on at 50 % sampling, exporting to a collector of the test's own: a
// payment's create and simulation (sent in the merchant's own trace), the ledger's posting and the webhook are one
// trace, parented across the command transport and Kafka, and the services' log lines carry its id. A payment whose
// trace the ratio leaves out costs no span anywhere: nothing is recorded and no trace context travels on.
describe('one trace from the merchant to the webhook', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  const collector = new TestTraceCollector();
  const receiver = new TestWebhookReceiver();

  beforeAll(async () => {
    await collector.listen();
    const receiverUrl = await receiver.listen();
    stack = await startStack(['ledger', 'sessions', 'webhook-dispatcher', 'gateway'], {
      WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      RATE_LIMIT_TEST_PER_SEC: '10000',
      LOG_LEVEL: 'debug',
      ...collector.settings(String(RATIO)),
    });
    merchant = await stack.createMerchant({ verified: true });
    const endpoint = await stack.call('POST', '/api/v1/webhook-endpoints', {
      key: merchant.test_key,
      body: { url: receiverUrl, events: ['payment_intent.succeeded'] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(endpoint.status).toBe(201);
    receiver.secret = endpoint.body.secret;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver.close();
    await collector.close();
  });

  /** A create and its simulation, both sent with the merchant's `traceparent`; resolves once the webhook arrived. */
  async function payInTrace(traceparent: string, amount: string) {
    const post = async (path: string, body: object) => {
      const res = await stack.call('POST', path, { key: merchant.test_key, body, headers: { traceparent, 'Idempotency-Key': randomUUID() } });
      expect(res.status).toBeLessThan(300);
      return res;
    };
    const created = await post('/api/v1/payment-intents', { amount, currency: 'USD' });
    const simulated = await post(`/api/v1/payment-intents/${created.body.id}/simulate`, { result: 'succeeded', method: 'togo' });
    await waitFor(() => receiver.arrivals.some((a) => a.objectId === created.body.id), 60_000, 'the webhook');
    return { created, simulated };
  }

  it('create → simulate → posting → webhook delivered is one trace across gateway, sessions, ledger and dispatcher', async () => {
    // The merchant's own trace context, sent with both requests, with a trace id the ratio records.
    const traceId = traceIdSampled(true);
    const merchantSpanId = randomBytes(8).toString('hex');
    const { created, simulated } = await payInTrace(`00-${traceId}-${merchantSpanId}-01`, '25.00');
    const spans = () => collector.trace(traceId);
    const named = (service: string, kind: number, name?: RegExp) => spans().filter((s) => s.service === service && s.kind === kind && (!name || name.test(s.name)));
    await waitFor(
      () => named('webhooks', CLIENT, /^webhook attempt$/).length > 0 && named('ledger', CONSUMER).length > 0 && named('ledger', PRODUCER).length > 0,
      30_000,
      'the spans of the posting and the webhook attempt',
    );

    const trace = spans();
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const parentOf = (span: CollectedSpan) => byId.get(span.parentSpanId);
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'sessions', 'ledger', 'webhooks']));

    // Every span hangs from another of the trace, or from the merchant's span (the gateway's request spans).
    const orphans = trace.filter((s) => !byId.has(s.parentSpanId));
    expect(orphans.length).toBeGreaterThan(0);
    for (const orphan of orphans) expect({ service: orphan.service, kind: orphan.kind, parent: orphan.parentSpanId }).toEqual({ service: 'gateway', kind: SERVER, parent: merchantSpanId });

    // The Request-Id each response carried finds the gateway's root span of that request.
    for (const response of [created, simulated]) {
      const requestId = response.headers.get('request-id');
      expect(orphans.filter((s) => s.attributes['payments.request_id'] === requestId)).toHaveLength(1);
    }

    // Command transport: the sessions' command spans are children of the gateway's client spans of the same command.
    const commands = named('sessions', SERVER);
    expect(commands.length).toBeGreaterThanOrEqual(2);
    for (const command of commands) expect(parentOf(command)).toMatchObject({ service: 'gateway', kind: CLIENT, name: command.name });

    // Kafka: the ledger and the dispatcher handle the sessions' events as children of their publishing spans.
    for (const consumer of ['ledger', 'webhooks']) {
      const handled = named(consumer, CONSUMER);
      expect(handled.length).toBeGreaterThan(0);
      for (const span of handled) expect(parentOf(span)).toMatchObject({ kind: PRODUCER });
      expect(handled.some((span) => parentOf(span)!.service === 'sessions')).toBe(true);
    }
    // The sessions' publishing spans continue the command that wrote the event (stored with the outbox row).
    for (const publish of named('sessions', PRODUCER)) expect(parentOf(publish)).toMatchObject({ service: 'sessions' });
    // The ledger's posting events are published in the trace of the event that caused them.
    for (const publish of named('ledger', PRODUCER)) expect(parentOf(publish)).toMatchObject({ service: 'ledger' });

    // The webhook attempt, made later by the delivery worker, is a child of the dispatcher's handling of the event.
    const attempts = named('webhooks', CLIENT, /^webhook attempt$/);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.attributes).toMatchObject({ 'payments.outcome': 'succeeded', 'http.response.status_code': 200 });
    expect(parentOf(attempts[0]!)).toMatchObject({ service: 'webhooks', kind: CONSUMER });

    // A log line of each service carries the trace id.
    for (const app of ['gateway', 'sessions', 'ledger', 'webhook-dispatcher'] as const) {
      const lines = stack.services[app]!.output().split('\n').filter((line) => line.startsWith('{'));
      const traced = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.trace_id === traceId);
      expect({ app, traced: traced.length > 0 }).toEqual({ app, traced: true });
      expect(traced.every((line) => typeof line.span_id === 'string' && byId.has(line.span_id))).toBe(true);
    }
    // The recorded trace's context travelled with its events (stored for the later attempts).
    const webhooks = await stack.db.dataSource('webhooks');
    const stored = (await webhooks.query(`SELECT trace_context FROM webhooks.events WHERE aggregate_id = $1 AND type = 'payment_intent.succeeded'`, [created.body.id])) as Array<{ trace_context: string | null }>;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.trace_context).toContain(traceId);

    // Traces only: no metrics or logs are exported.
    expect(collector.otherPaths).toEqual([]);
  });

  it('a payment whose trace the ratio leaves out makes no span in any service, though its caller asked to record it', async () => {
    const traceId = traceIdSampled(false);
    // Spans of the traces recorded so far may still come in (the previous payment's later consumers); any span of
    // a trace not seen before would be this payment's (background work is not traced).
    const earlier = new Set(collector.spans.map((span) => span.traceId));
    const before = collector.spans.length;
    const { created } = await payInTrace(`00-${traceId}-${randomBytes(8).toString('hex')}-01`, '26.00');
    // The exporters send every 100 ms: a second is ample for any span of this payment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(collector.trace(traceId)).toEqual([]);
    expect(collector.spans.slice(before).filter((span) => !earlier.has(span.traceId))).toEqual([]);
    // No trace context travelled with its events either: the dispatcher stored none for the webhook's event.
    const webhooks = await stack.db.dataSource('webhooks');
    const stored = (await webhooks.query(`SELECT type, trace_context FROM webhooks.events WHERE aggregate_id = $1`, [created.body.id])) as Array<{ type: string; trace_context: string | null }>;
    expect(stored.map((row) => row.type)).toContain('payment_intent.succeeded');
    expect(stored.every((row) => row.trace_context === null)).toBe(true);
  });
});
