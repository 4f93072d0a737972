import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deadLetterTopic, STREAMS, topicName } from '@payments/events';
import { collectMessages, REPO_ROOT, startStack, testKafka, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// The ledger as merchants and operators meet it: payments made through the gateway are booked from sessions'
// events (refunds from the refunds service's), the balance and its transactions are read through the gateway, and `npm run admin -- ledger ...` checks
// and corrects it.
describe('ledger service', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  /** Gets payment events written straight to Kafka (payments sessions never made). */
  let injected: TestMerchant;

  const call = (path: string, key = merchant.test_key) => stack.call('GET', path, { key });
  const available = async (key = merchant.test_key) => (await call('/api/v1/balance', key)).body.available[0].amount as string;

  async function paidIntent(amount: string, method = 'crypto', key = merchant.test_key) {
    const intent = (await stack.call('POST', '/api/v1/payment-intents', { key, body: { amount, currency: 'USD' }, headers: { 'Idempotency-Key': randomUUID() } })).body;
    const paid = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key, body: { result: 'succeeded', method } });
    expect(paid.status).toBe(200);
    return paid.body as { id: string; payment_id: string; fee: string; net_amount: string };
  }

  async function admin(...args: string[]): Promise<{ code: number; json: any }> {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'tools/admin.mjs'), ...args, '--json'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: stack.db.url, LOG_LEVEL: 'warn' },
      });
      return { code: 0, json: JSON.parse(stdout) };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, json: failed.stdout.trim() ? JSON.parse(failed.stdout) : { stderr: failed.stderr } };
    }
  }

  /** Writes events to the sessions topic as sessions would, one message each, in order; answers the topic. */
  async function publish(events: Array<{ aggregate_id: string }>): Promise<string> {
    const topic = topicName(stack.namespace, STREAMS.sessions);
    const producer = testKafka().producer();
    await producer.connect();
    for (const event of events) await producer.send({ topic, messages: [{ key: event.aggregate_id, value: JSON.stringify(event) }] });
    await producer.disconnect();
    return topic;
  }

  function paymentEvent(payment: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
    const id = `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    return {
      id,
      type: 'payment_intent.succeeded',
      schema_version: 1,
      aggregate_type: 'payment_intent',
      aggregate_id: `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      sequence: 3,
      merchant_id: injected.merchant_id,
      environment: 'test',
      occurred_at: new Date().toISOString(),
      correlation_id: 'req_ledger_test',
      causation_id: null,
      data: { payment: { method: 'crypto', currency: 'USD', fee_rate_bps: 150, ...payment } },
      ...overrides,
    };
  }

  beforeAll(async () => {
    stack = await startStack(['sessions', 'ledger', 'refunds', 'gateway']);
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    injected = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('serves the event contract on its operations port, with this deployment\'s topics, and not on the public port', async () => {
    const doc = (await fetch(`${stack.services.ledger!.opsUrl}/asyncapi.json`).then((res) => res.json())) as any;
    expect(doc).toMatchObject({ asyncapi: '3.0.0', channels: { 'ledger.events': { address: `${stack.namespace}.ledger.events.v1` } } });
    expect(Object.keys(doc.channels['ledger.events'].messages)).toEqual(['ledger.posting.created']);
    expect((await stack.call('GET', '/asyncapi.json')).status).toBe(404);
  });

  it('a new merchant has a balance of 0.00 in each environment', async () => {
    const res = await call('/api/v1/balance');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'balance', environment: 'test', available: [{ amount: '0.00', currency: 'USD' }] });
    expect((await call('/api/v1/balance', merchant.live_key)).body).toEqual({ object: 'balance', environment: 'live', available: [{ amount: '0.00', currency: 'USD' }] });
  });

  it("books a payment's net to the balance, lists it as a balance transaction, and leaves live untouched", async () => {
    const paid = await paidIntent('200.00');
    await waitFor(async () => (await available()) === paid.net_amount, 30_000, 'the payment to reach the balance');
    expect(paid.net_amount).toBe('197.00');
    const list = await call('/api/v1/balance-transactions');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      object: 'list',
      has_more: false,
      data: [
        {
          id: expect.stringMatching(/^txn_[A-Za-z0-9_-]{24}$/),
          object: 'balance_transaction',
          type: 'payment',
          amount: '200.00',
          fee: '3.00',
          net: '197.00',
          currency: 'USD',
          source: paid.id,
          payment_id: paid.payment_id,
          description: null,
          created_at: expect.any(String),
        },
      ],
    });
    const [published] = (await collectMessages(topicName(stack.namespace, STREAMS.ledger), 1)).filter((m) => m.key === list.body.data[0].id);
    expect(JSON.parse(published!.value!)).toMatchObject({
      type: 'ledger.posting.created',
      merchant_id: merchant.merchant_id,
      data: { id: list.body.data[0].id, kind: 'payment', amount: '200.00', fee: '3.00', net: '197.00', payment_id: paid.payment_id, entries: expect.any(Array) },
    });
    expect(await available(merchant.live_key)).toBe('0.00');
    expect((await call('/api/v1/balance-transactions', merchant.live_key)).body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it('pages newest first with limit, starting_after and ending_before, and filters by type', async () => {
    for (const amount of ['10.00', '11.00', '12.00']) await paidIntent(amount, 'togo');
    await waitFor(async () => (await call('/api/v1/balance-transactions?limit=100')).body.data.length === 4, 30_000, 'four postings');
    const first = await call('/api/v1/balance-transactions?limit=2');
    expect(first.body.data.map((t: any) => t.amount)).toEqual(['12.00', '11.00']);
    expect(first.body.has_more).toBe(true);
    const second = await call(`/api/v1/balance-transactions?limit=2&starting_after=${first.body.data[1].id}`);
    expect(second.body.data.map((t: any) => t.amount)).toEqual(['10.00', '200.00']);
    expect(second.body.has_more).toBe(false);
    const back = await call(`/api/v1/balance-transactions?limit=2&ending_before=${second.body.data[0].id}`);
    expect(back.body.data.map((t: any) => t.amount)).toEqual(['12.00', '11.00']);
    expect((await call('/api/v1/balance-transactions?type=refund')).body.data).toEqual([]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await call(`/api/v1/balance-transactions?created[gte]=${encodeURIComponent(future)}`)).body.data).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['type=payout', 'type'],
    ['starting_after=nope', 'starting_after'],
    ['created[gte]=yesterday', 'created[gte]'],
    ['unknown=1', 'unknown'],
  ])('refuses %s with a 400 naming the parameter', async (query, param) => {
    const res = await call(`/api/v1/balance-transactions?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it("another merchant's cursor is a 400 that leaks nothing", async () => {
    const [own] = (await call('/api/v1/balance-transactions?limit=1')).body.data;
    const other = await stack.createMerchant({ testLimit: 1000 });
    const res = await call(`/api/v1/balance-transactions?starting_after=${own.id}`, other.test_key);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
    expect(JSON.stringify(res.body)).not.toContain(merchant.merchant_id);
  });

  it('one payment event delivered five times posts once', async () => {
    const before = await available(injected.test_key);
    const event = paymentEvent({ id: '7700000000000001', amount: '50.00', fee: '0.75', net: '49.25' });
    // Twice as it is, three times as other events about the same payment.
    await publish([0, 1, 2, 3, 4].map((i) => (i < 2 ? event : { ...event, id: `${event.id.slice(0, -1)}${i}` })));
    const expected = (Number(before.replace('.', '')) + 4925).toString().replace(/(\d{2})$/, '.$1');
    await waitFor(async () => (await available(injected.test_key)) === expected, 30_000, 'the payment to be booked');
    // Give the other four deliveries time to arrive; the balance must not move again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await available(injected.test_key)).toBe(expected);
    expect((await call('/api/v1/balance-transactions', injected.test_key)).body.data).toHaveLength(1);
  });

  it('a payment whose fee disagrees with its rate is parked with the reason and counted, never posted', async () => {
    const before = await available(injected.test_key);
    const event = paymentEvent({ id: '7700000000000002', amount: '50.00', fee: '0.50', net: '49.50' });
    const topic = await publish([event]);
    const parked = (await collectMessages(deadLetterTopic(topic), 1)).filter((m) => m.key === event.aggregate_id);
    // At once, with the reason: a refusal is not retried.
    expect(parked[0]?.headers).toMatchObject({ 'dlq-reason': expect.stringMatching(/^fee_mismatch: payment 7700000000000002/), 'dlq-attempts': '1', 'dlq-consumer': 'ledger.payments' });
    const metrics = await fetch(`${stack.services.ledger!.opsUrl}/metrics`).then((res) => res.text());
    expect(metrics).toMatch(/^ledger_refused_events_total\{reason="fee_mismatch"\} 1$/m);
    expect(await available(injected.test_key)).toBe(before);
  });

  it('ledger check is clean for payments sessions made, and reports a posting for a payment it never made', async () => {
    const check = await admin('ledger', 'check', '--merchant', merchant.merchant_id);
    expect(check.code).toBe(0);
    expect(check.json).toMatchObject({ ok: true, findings: [] });
    const all = await admin('ledger', 'check');
    expect(all.code).toBe(1);
    expect(all.json.findings).toEqual([
      expect.objectContaining({ invariant: 'every payment posting matches a payment sessions made', examples: [expect.objectContaining({ payment_id: '7700000000000001' })] }),
    ]);
  });

  it('an adjustment posts once per key', async () => {
    const before = await available();
    const adjust = (key: string, amount: string) => admin('ledger', 'adjust', '--merchant', merchant.merchant_id, '--env', 'test', '--amount', amount, '--reason', 'goodwill credit', '--key', key);
    const first = await adjust('adj-1', '-1.25');
    expect(first).toMatchObject({ code: 0, json: { created: true, amount: '-1.25' } });
    expect(await adjust('adj-1', '-1.25')).toMatchObject({ code: 0, json: { created: false, posting_id: first.json.posting_id } });
    expect((await adjust('adj-1', '-2.00')).code).toBe(1);
    const expected = (Number(before.replace('.', '')) - 125).toString().replace(/(\d{2})$/, '.$1');
    expect(await available()).toBe(expected);
    const [latest] = (await call('/api/v1/balance-transactions?limit=1&type=adjustment')).body.data;
    expect(latest).toMatchObject({ type: 'adjustment', amount: '-1.25', net: '-1.25', source: null, description: 'goodwill credit' });
    expect((await admin('ledger', 'check', '--merchant', merchant.merchant_id)).json).toMatchObject({ ok: true });
  });

  it('books a completed refund once: the balance falls by the refund, the fee stays, ledger check stays clean', async () => {
    const paid = await paidIntent('40.00', 'togo');
    await waitFor(async () => (await call('/api/v1/balance-transactions?limit=100')).body.data.some((t: any) => t.payment_id === paid.payment_id), 30_000, 'the payment');
    const before = await available();
    const refund = await stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key: merchant.test_key, body: { amount: '15.50' }, headers: { 'Idempotency-Key': randomUUID() } });
    expect(refund.status).toBe(201);
    const expected = (Number(before.replace('.', '')) - 1550).toString().replace(/(\d{2})$/, '.$1');
    await waitFor(async () => (await available()) === expected, 30_000, 'the refund to reach the balance');
    const [latest] = (await call('/api/v1/balance-transactions?limit=1&type=refund')).body.data;
    expect(latest).toMatchObject({ type: 'refund', amount: '-15.50', fee: '0.00', net: '-15.50', source: refund.body.id, payment_id: paid.payment_id });

    // The refund's events delivered again (as after a crash before the commit) post nothing more.
    const topic = topicName(stack.namespace, STREAMS.refunds);
    const events = (await collectMessages(topic, 2, 20_000, undefined, (m) => m.key === refund.body.id)).map((m) => m.value!);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: events.map((value) => ({ key: refund.body.id, value })) });
    await producer.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await available()).toBe(expected);
    expect((await call('/api/v1/balance-transactions?limit=100&type=refund')).body.data.filter((t: any) => t.source === refund.body.id)).toHaveLength(1);
    expect((await admin('ledger', 'check', '--merchant', merchant.merchant_id)).json).toMatchObject({ ok: true, findings: [] });
  });

  it('a refund event that cannot be booked is parked with the reason, never posted', async () => {
    const before = await available(injected.test_key);
    const topic = topicName(stack.namespace, STREAMS.refunds);
    const refundId = `re_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const object = {
      id: refundId, object: 'refund', payment_id: '7700000000000001', amount: '0.00', currency: 'USD', reason: null, status: 'completed',
      failure_reason: null, environment: 'test', created_at: new Date().toISOString(), completed_at: new Date().toISOString(),
    };
    const event = {
      ...paymentEvent({}),
      type: 'refund.completed',
      aggregate_type: 'refund',
      aggregate_id: refundId,
      sequence: 2,
      data: { object, payment: { id: '7700000000000001', source: 'pi_test_x', method: 'crypto', amount: '50.00', currency: 'USD' } },
    };
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: refundId, value: JSON.stringify(event) }] });
    await producer.disconnect();
    const parked = await collectMessages(deadLetterTopic(topic), 1, 20_000, undefined, (m) => m.key === refundId);
    expect(parked[0]?.headers).toMatchObject({ 'dlq-reason': expect.stringMatching(/^amount: refund re_/), 'dlq-attempts': '1' });
    expect(await available(injected.test_key)).toBe(before);
  });
});
