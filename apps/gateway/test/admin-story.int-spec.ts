import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { STREAMS, topicName } from '@payments/events';
import { REPO_ROOT, startStack, testKafka, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';
import { AssignerProtocol } from 'kafkajs';

// `npm run admin -- story <id>`: one payment's story read from every owner's own data (sessions, the ledger, refunds,
// the webhook-dispatcher), for a payment made through the gateway with a partial refund and a webhook endpoint.
describe('admin story', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let endpointId: string;
  const receiver = new TestWebhookReceiver();

  beforeAll(async () => {
    const receiverUrl = await receiver.listen();
    stack = await startStack(['ledger', 'sessions', 'refunds', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    const endpoint = await stack.call('POST', '/api/v1/webhook-endpoints', {
      key: merchant.test_key,
      body: { url: receiverUrl, events: ['payment_intent.succeeded', 'refund.created', 'refund.completed'] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.id;
    receiver.secret = endpoint.body.secret;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver.close();
  });

  const post = async (path: string, body: object) => {
    const res = await stack.call('POST', path, { key: merchant.test_key, body, headers: { 'Idempotency-Key': randomUUID() } });
    expect(res.status).toBeLessThan(300);
    return res.body;
  };

  /** The text form, as an operator reads it (stack.admin always asks for --json). */
  async function storyText(id: string): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'tools', 'admin.mjs'), 'story', id], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: stack.db.url, LOG_LEVEL: 'warn' },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('tells a paid, partly refunded intent: events in sequence, payment, postings, refund, webhook deliveries and attempts', async () => {
    const intent = await post('/api/v1/payment-intents', { amount: '30.00', currency: 'USD' });
    const paid = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'togo' });
    const refund = await post(`/api/v1/payments/${paid.payment_id}/refunds`, { amount: '12.00', reason: 'returned' });

    // Everything has happened once the ledger booked both and both webhooks were delivered.
    let story: any;
    await waitFor(
      async () => {
        story = await stack.admin('story', intent.id);
        const delivered = story.webhook_events.flatMap((e: any) => e.deliveries).filter((d: any) => d.status === 'succeeded');
        return story.postings.length === 2 && delivered.length === 3;
      },
      60_000,
      'the postings and the webhooks',
    );

    expect(story.session).toMatchObject({ object: 'payment_intent', id: intent.id, merchant_id: merchant.merchant_id, environment: 'test', status: 'succeeded', amount: '30.00', currency: 'USD' });
    expect(story.events.map((e: any) => e.sequence)).toEqual(story.events.map((_: unknown, i: number) => i + 1));
    // Sessions' own event types (its event store), as they happened.
    expect(story.events.map((e: any) => e.type)).toEqual(['PaymentIntentCreated', 'PaymentIntentProcessingStarted', 'PaymentIntentSucceeded']);
    expect(story.events.every((e: any) => !Number.isNaN(Date.parse(e.occurred_at)))).toBe(true);
    expect(story.payment).toMatchObject({ id: String(paid.payment_id), method: 'togo', amount: '30.00', fee: paid.fee, net: paid.net_amount });
    expect(story.postings.map((p: any) => p.kind).sort()).toEqual(['payment', 'refund']);
    const payment = story.postings.find((p: any) => p.kind === 'payment');
    expect(payment).toMatchObject({ payment_id: String(paid.payment_id), amount: '30.00' });
    // Double entry: each posting's entries add up to nothing.
    for (const posting of story.postings) {
      expect(posting.entries.length).toBeGreaterThanOrEqual(2);
      expect(posting.entries.reduce((sum: bigint, e: any) => sum + BigInt(e.amount.replace('.', '')), 0n)).toBe(0n);
    }
    expect(story.refunds).toEqual([expect.objectContaining({ id: refund.id, amount: '12.00', status: 'completed', reason: 'returned' })]);
    // The dispatcher keeps every event of the objects; the endpoint subscribed to three types, each delivered once.
    expect(story.webhook_events.map((e: any) => e.type)).toContain('payment_intent.created');
    const delivered = story.webhook_events.filter((e: any) => e.deliveries.length > 0);
    expect(delivered.map((e: any) => `${e.type} ${e.object_id}`).sort()).toEqual(
      [`payment_intent.succeeded ${intent.id}`, `refund.completed ${refund.id}`, `refund.created ${refund.id}`].sort(),
    );
    for (const event of delivered) {
      expect(event.deliveries).toEqual([expect.objectContaining({ endpoint_id: endpointId, kind: 'first', status: 'succeeded', attempt_count: 1 })]);
      expect(event.deliveries[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
    }
    expect(story.unreadable).toEqual([]);

    // The same story from the payment's number or the refund's id.
    expect(await stack.admin('story', String(paid.payment_id))).toEqual({ ...story, query: String(paid.payment_id) });
    expect(await stack.admin('story', refund.id)).toEqual({ ...story, query: refund.id });

    // The text form names each part.
    const text = await storyText(intent.id);
    expect(text.code).toBe(0);
    for (const part of [
      `Payment intent ${intent.id}`,
      'Events (sessions):',
      'PaymentIntentSucceeded',
      'no endpoint subscribed',
      `Payment ${paid.payment_id} (togo): 30.00 USD`,
      'Ledger postings:',
      `Refunds:\n  ${refund.id}  completed  12.00 USD`,
      'Webhooks:',
      `to ${endpointId} (first): succeeded after 1 attempt`,
      'attempt 1',
    ]) {
      expect(text.stdout).toContain(part);
    }

    // The dispatcher counted the attempts per endpoint (the webhook-failure alert's series).
    const metrics = await fetch(`${stack.services['webhook-dispatcher']!.opsUrl}/metrics`).then((res) => res.text());
    expect(metrics).toContain(`webhook_endpoint_attempts_total{endpoint_id="${endpointId}",result="succeeded"} 3\n`);
  });

  it("books payments from the copies of sessions' paid events: the ledger and refunds never read a session's other events", async () => {
    const intent = await post('/api/v1/payment-intents', { amount: '8.00', currency: 'USD' });
    const paid = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'crypto' });
    await waitFor(async () => (await stack.admin('story', intent.id)).postings.length === 1, 30_000, 'the payment booked');
    expect((await stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key: merchant.test_key, body: { amount: '1.00' }, headers: { 'Idempotency-Key': randomUUID() } })).status).toBe(201);

    // The topics each group's members were given: the copies and refunds' own, not sessions' events topic.
    const admin = testKafka().admin();
    await admin.connect();
    try {
      const topicsOf = async (group: string) => {
        const [described] = (await admin.describeGroups([`${stack.namespace}.${group}`])).groups;
        return new Set(described!.members.flatMap((m) => Object.keys(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {})));
      };
      const topic = (stream: string) => topicName(stack.namespace, stream);
      expect(await topicsOf('ledger.payments')).toEqual(new Set([topic(STREAMS.sessionPayments), topic(STREAMS.refunds)]));
      expect(await topicsOf('refunds.payments')).toEqual(new Set([topic(STREAMS.sessionPayments)]));
    } finally {
      await admin.disconnect();
    }
  });

  it('tells an unpaid intent without a payment, and refuses an id it does not know with exit code 1', async () => {
    const intent = await post('/api/v1/payment-intents', { amount: '5.00', currency: 'USD' });
    const story = await stack.admin('story', intent.id);
    expect(story).toMatchObject({ session: { id: intent.id, status: 'requires_payment_method' }, payment: null, postings: [], refunds: [] });
    expect(story.events).toEqual([expect.objectContaining({ sequence: 1, type: 'PaymentIntentCreated' })]);
    expect(story.webhook_events.flatMap((e: any) => e.deliveries)).toEqual([]);

    const unknown = await storyText('pi_test_000000000000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: no payment intent, invoice, payment or refund with id pi_test_0+/);
  });
});
