import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deadLetterTopic, STREAMS, topicName } from '@payments/events';
import { Client } from 'pg';
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

  /** `npm run admin -- ...` as an operator runs it: its exit code, its output, and that output parsed when --json. */
  async function runAdmin(args: string[], { json = true, env = {} }: { json?: boolean; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; json: any }> {
    let code = 0;
    let stdout: string;
    let stderr = '';
    try {
      ({ stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'tools/admin.mjs'), ...args, ...(json ? ['--json'] : [])], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: stack.db.url, LOG_LEVEL: 'warn', ...env },
      }));
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      ({ code, stdout, stderr } = failed);
    }
    return { code, stdout, json: json ? (stdout.trim() ? JSON.parse(stdout) : { stderr }) : undefined };
  }

  async function admin(...args: string[]): Promise<{ code: number; json: any }> {
    const { code, json } = await runAdmin(args);
    return { code, json };
  }

  /** One statement on the stack's database, as the owner's service would have written it (fixtures of ledger check). */
  async function sql(text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    const client = new Client({ connectionString: stack.db.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  const someId = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const somePaymentId = () => String(8_800_000_000_000_000 + Math.floor(Math.random() * 1e12));

  /** Writes events to the topic of sessions' paid events as its relay would, one message each, in order; answers the topic. */
  async function publish(events: Array<{ aggregate_id: string }>): Promise<string> {
    const topic = topicName(stack.namespace, STREAMS.sessionPayments);
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

  /** A `refund.completed` of `amount` from a test crypto payment of the injected merchant, as the refunds service writes it; answers its id. */
  async function publishRefundCompleted(payment: { id: string; source: string; amount: string }, amount: string): Promise<string> {
    const refundId = someId('re_');
    const object = {
      id: refundId, object: 'refund', payment_id: payment.id, amount, currency: 'USD', reason: null, status: 'completed',
      failure_reason: null, environment: 'test', created_at: new Date().toISOString(), completed_at: new Date().toISOString(),
    };
    const event = {
      ...paymentEvent({}),
      type: 'refund.completed',
      aggregate_type: 'refund',
      aggregate_id: refundId,
      sequence: 2,
      data: { object, payment: { ...payment, method: 'crypto', currency: 'USD' } },
    };
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic: topicName(stack.namespace, STREAMS.refunds), messages: [{ key: refundId, value: JSON.stringify(event) }] });
    await producer.disconnect();
    return refundId;
  }

  beforeAll(async () => {
    // An operator's standard schedule on the gateway alone (lahza at 1.2 % instead of DESIGN's 1.5 %): sessions and
    // the ledger learn the rate from each create and each payment.
    stack = await startStack(['sessions', 'ledger', 'refunds', 'gateway'], {}, {
      gateway: { FEE_SCHEDULE_BPS: 'lahza=120' },
      // The background check every second, so the alert's series moves within the test.
      ledger: { LEDGER_CHECK_INTERVAL_MS: '1000' },
    });
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

  it('runs below the request path\'s CPU priority (PROCESS_NICE 10 by default), the gateway at the normal one', () => {
    // (Relative to the test runner's own priority, which the services inherit.)
    expect(getPriority(stack.services.ledger!.process.pid!)).toBe(Math.max(10, getPriority()));
    expect(getPriority(stack.services.gateway!.process.pid!)).toBe(getPriority());
  });

  it('a new merchant has a balance of 0.00 in each environment', async () => {
    const res = await call('/api/v1/balance');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'balance', environment: 'test', available: [{ amount: '0.00', currency: 'USD' }] });
    expect((await call('/api/v1/balance', merchant.live_key)).body).toEqual({ object: 'balance', environment: 'live', available: [{ amount: '0.00', currency: 'USD' }] });
  });

  it('balance reads arriving together share one question to the ledger, and a payment still shows', async () => {
    const reader = await stack.createMerchant({ testLimit: 10000 });
    const balanceReads = async () => {
      const text = await (await fetch(`${stack.services.gateway!.opsUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => /^rpc_round_trip_seconds_count\{[^}]*command="ledger\.balance\.get"/.test(l));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await balanceReads();
    const answers = await Promise.all(Array.from({ length: 40 }, () => call('/api/v1/balance', reader.test_key)));
    expect(answers.map((a) => a.body.available[0].amount)).toEqual(Array(40).fill('0.00'));
    const asked = (await balanceReads()) - before;
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(2);
    const paid = await paidIntent('20.00', 'crypto', reader.test_key);
    await waitFor(async () => (await available(reader.test_key)) === paid.net_amount, 30_000, 'the payment to reach the balance');
  });

  it("a merchant's own fee rate (admin merchant fees) is what its payments are charged and what the ledger books", async () => {
    const own = await stack.createMerchant({ testLimit: 10000 });
    const set = await stack.admin('merchant', 'fees', '--id', own.merchant_id, '--crypto', '120');
    expect(set.fee_overrides).toEqual({ crypto: 120 });
    const paid = await paidIntent('100.00', 'crypto', own.test_key);
    expect(paid).toMatchObject({ fee: '1.20', net_amount: '98.80' });
    await waitFor(async () => (await available(own.test_key)) === '98.80', 30_000, 'the payment to reach the balance');
    const [booked] = (await call('/api/v1/balance-transactions', own.test_key)).body.data;
    expect(booked).toMatchObject({ type: 'payment', amount: '100.00', fee: '1.20', net: '98.80' });
  });

  it("the operator's standard schedule (FEE_SCHEDULE_BPS) is what payments are charged and booked, under a merchant's own rates", async () => {
    const standard = await stack.createMerchant({ testLimit: 10000 });
    expect(await paidIntent('100.00', 'lahza', standard.test_key)).toMatchObject({ fee: '1.20', net_amount: '98.80' });
    expect(await paidIntent('100.00', 'crypto', standard.test_key)).toMatchObject({ fee: '1.50', net_amount: '98.50' });
    await waitFor(async () => (await available(standard.test_key)) === '197.30', 30_000, 'both payments to reach the balance');
    const own = await stack.createMerchant({ testLimit: 10000 });
    await stack.admin('merchant', 'fees', '--id', own.merchant_id, '--lahza', '90');
    expect(await paidIntent('100.00', 'lahza', own.test_key)).toMatchObject({ fee: '0.90', net_amount: '99.10' });
    await waitFor(async () => (await available(own.test_key)) === '99.10', 30_000, 'the payment to reach the balance');
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
    // Its chain: the request that started it (the merchant's, a req_ id, as the payment's event says), caused by that event.
    const envelope = JSON.parse(published!.value!);
    expect(envelope.correlation_id).toMatch(/^req_/);
    expect(envelope.causation_id).toMatch(/^evt_/);
    // Its inbox holds the events it booked and no other: the intents' created events passed without a transaction.
    const inbox = await sql(`SELECT event_id FROM ledger.inbox WHERE consumer = 'ledger.payments'`);
    expect(inbox.map((row) => row.event_id)).toContain(envelope.causation_id);
    expect(await sql(`SELECT i.event_id FROM ledger.inbox i WHERE NOT EXISTS (SELECT 1 FROM ledger.postings p WHERE p.event_id = i.event_id)`)).toEqual([]);
    expect(await available(merchant.live_key)).toBe('0.00');
    expect((await call('/api/v1/balance-transactions', merchant.live_key)).body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it('pages newest first with limit, starting_after and ending_before, and filters by type', async () => {
    // Each booked before the next is paid: postings booked in one consumer transaction share its created_at, and
    // their order is then the ids' (the API shows and filters by created_at, newest first).
    for (const [i, amount] of ['10.00', '11.00', '12.00'].entries()) {
      await paidIntent(amount, 'togo');
      await waitFor(async () => (await call('/api/v1/balance-transactions?limit=100')).body.data.length === i + 2, 30_000, `${i + 2} postings`);
    }
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

  it('filters by created[lt] (before, exclusive) alone and with created[gte]', async () => {
    const all = (await call('/api/v1/balance-transactions?limit=100')).body.data as Array<{ amount: string; created_at: string }>;
    expect(all.map((t) => t.amount)).toEqual(['12.00', '11.00', '10.00', '200.00']);
    const created = (query: string) => call(`/api/v1/balance-transactions?${query}`).then((res) => res.body.data.map((t: any) => t.amount));
    const at = (i: number) => encodeURIComponent(all[i]!.created_at);
    // What the filter must give, by the created_at each transaction shows. Postings booked in one consumer
    // transaction may share a millisecond: then a bound at one of them leaves out all of that millisecond.
    const shown = (gte: number | null, lt: number) =>
      all.filter((t) => (gte === null || t.created_at >= all[gte]!.created_at) && t.created_at < all[lt]!.created_at).map((t) => t.amount);
    // Before the 11.00's creation: not itself, the older ones.
    expect(await created(`created[lt]=${at(1)}`)).toEqual(shown(null, 1));
    expect(shown(null, 1)).toContain('200.00');
    expect(shown(null, 1)).not.toContain('11.00');
    expect(await created(`created[gte]=${at(2)}&created[lt]=${at(0)}`)).toEqual(shown(2, 0));
    expect(shown(2, 0)).not.toContain('12.00');
    expect(shown(2, 0)).not.toContain('200.00');
    expect(await created(`created[lt]=${encodeURIComponent('2020-01-01T00:00:00.000Z')}`)).toEqual([]);
    expect((await call('/api/v1/balance-transactions?created[lt]=soon')).body.error).toMatchObject({ code: 'invalid_request', param: 'created[lt]' });
    // A date alone is its midnight, UTC.
    expect(await created('created[lt]=2020-01-01')).toEqual([]);
    expect(await created('created[gte]=2020-01-01')).toHaveLength(all.length);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['type=payout', 'type'],
    ['starting_after=nope', 'starting_after'],
    ['created[gte]=yesterday', 'created[gte]'],
    // ISO 8601 forms no date parser reads (week, ordinal, basic, hour only, decimal comma): they were a 500.
    ['created[gte]=2026-W48', 'created[gte]'],
    ['created[gte]=2026-330', 'created[gte]'],
    ['created[lt]=20261126T165800Z', 'created[lt]'],
    ['created[lt]=2026-11-26T16', 'created[lt]'],
    [`created[lt]=${encodeURIComponent('2026-11-26T16:58:00,5Z')}`, 'created[lt]'],
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
    // The dead-letter alert's series, and the lag and outbox-age series the other alerts read.
    expect(metrics).toContain(`events_dead_lettered_total{consumer="ledger.payments",topic="${topic}"} 1\n`);
    expect(metrics).toMatch(new RegExp(`^kafka_consumer_lag\\{consumer="ledger.payments",topic="${topic}",partition="\\d+"\\} \\d+$`, 'm'));
    expect(metrics).toMatch(/^outbox_oldest_unsent_age_seconds\{schema="ledger"\} [\d.e+-]+$/m);
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
    // The ledger's own background check finds the same and counts it (the ledger-check alert's series).
    const problems = /^ledger_checks_total\{result="problems"\} (\d+)$/m;
    await waitFor(async () => Number(problems.exec(await fetch(`${stack.services.ledger!.opsUrl}/metrics`).then((res) => res.text()))?.[1] ?? 0) >= 1, 30_000, 'a background check to count the problem');
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
    // No account, or no key: refused, nothing posted.
    for (const args of [
      ['--merchant', 'acct_doesnotexist000000000000', '--key', 'adj-2'],
      ['--merchant', 'foo', '--key', 'adj-3'],
      ['--merchant', merchant.merchant_id, '--key', ''],
      ['--merchant', merchant.merchant_id, '--key', '  '],
    ]) {
      const refused = await runAdmin(['ledger', 'adjust', '--env', 'test', '--amount', '1.00', '--reason', 'r', ...args], { json: false });
      expect(refused.code).toBe(1);
    }
    expect(await available()).toBe(expected);
    expect((await admin('ledger', 'check')).json.findings.filter((f: any) => JSON.stringify(f).includes('doesnotexist'))).toEqual([]);
  });

  it('books a completed refund once: the balance falls by the refund, the fee stays, ledger check stays clean', async () => {
    const paid = await paidIntent('40.00', 'togo');
    await waitFor(async () => (await call('/api/v1/balance-transactions?limit=100')).body.data.some((t: any) => t.payment_id === paid.payment_id), 30_000, 'the payment');
    // The balance as the journal has it (the nets of every transaction), not a read of GET /balance, which may be
    // up to 750 ms older than the list (read-your-writes is not promised).
    const nets = (await call('/api/v1/balance-transactions?limit=100')).body.data.map((t: any) => Number(t.net.replace('.', '')));
    const before = (nets.reduce((sum: number, cents: number) => sum + cents, 0) as number).toString().replace(/(\d{2})$/, '.$1');
    await waitFor(async () => (await available()) === before, 30_000, 'the balance to show the payment');
    const refund = await stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key: merchant.test_key, body: { amount: '15.50' }, headers: { 'Idempotency-Key': randomUUID() } });
    expect(refund.status).toBe(201);
    const expected = (Number(before.replace('.', '')) - 1550).toString().replace(/(\d{2})$/, '.$1');
    await waitFor(async () => (await available()) === expected, 30_000, 'the refund to reach the balance');
    const [latest] = (await call('/api/v1/balance-transactions?limit=1&type=refund')).body.data;
    expect(latest).toMatchObject({ type: 'refund', amount: '-15.50', fee: '0.00', net: '-15.50', source: refund.body.id, payment_id: paid.payment_id });
    // The event shows the posting as the balance transaction does (amount − fee = net; it said amount 15.50).
    const [published] = await collectMessages(topicName(stack.namespace, STREAMS.ledger), 1, 20_000, undefined, (m) => m.key === latest.id);
    expect(JSON.parse(published!.value!).data).toMatchObject({ kind: 'refund', amount: '-15.50', fee: '0.00', net: '-15.50', source: refund.body.id });

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
    // Clean, and compared with the refunds service's completed refund, not merely left out.
    const check = await admin('ledger', 'check', '--merchant', merchant.merchant_id);
    expect(check).toMatchObject({ code: 0, json: { ok: true, findings: [], unreadable: [], compared: { completedRefunds: 1 }, pendingCompletedRefunds: 0 } });
    expect(check.json.compared.sessionsPayments).toBeGreaterThanOrEqual(5);
  });

  it('a refund event that cannot be booked is parked with the reason, never posted', async () => {
    const before = await available(injected.test_key);
    const topic = topicName(stack.namespace, STREAMS.refunds);
    const refundId = await publishRefundCompleted({ id: '7700000000000001', source: 'pi_test_x', amount: '50.00' }, '0.00');
    const parked = await collectMessages(deadLetterTopic(topic), 1, 20_000, undefined, (m) => m.key === refundId);
    expect(parked[0]?.headers).toMatchObject({ 'dlq-reason': expect.stringMatching(/^amount: refund re_/), 'dlq-attempts': '1' });
    expect(await available(injected.test_key)).toBe(before);
  });

  it('books a crypto payment over-paid past what a session may ask, and a refund of all of it (a payment is what was received)', async () => {
    const cents = (money: string) => Number(money.replace('-', '').replace('.', '')) * (money.startsWith('-') ? -1 : 1);
    const before = cents(await available(injected.test_key));
    // 999,999.00 asked, 1,000,000.00 received, 1.5 %.
    const paymentId = somePaymentId();
    const event = paymentEvent({ id: paymentId, amount: '1000000.00', fee: '15000.00', net: '985000.00' });
    await publish([event]);
    await waitFor(async () => cents(await available(injected.test_key)) === before + 98_500_000, 30_000, 'the payment booked');

    await publishRefundCompleted({ id: paymentId, source: event.aggregate_id, amount: '1000000.00' }, '1000000.00');
    // The refund takes the whole amount back; the fee stays with the platform.
    await waitFor(async () => cents(await available(injected.test_key)) === before - 1_500_000, 30_000, 'the refund booked');
  });

  it('ledger check reports a completed refund of the refunds service that the ledger never booked, and not other merchants\' checks', async () => {
    const merchantId = someId('acct_chk');
    const paymentId = somePaymentId();
    const lost = someId('re_');
    const recent = someId('re_');
    const pending = someId('re_');
    await sql(
      `INSERT INTO refunds.payments (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, reserved_cents, refunded_cents, paid_at)
       VALUES ($1, $2, 'test', 'pi_test_x', 'crypto', 'USD', 10000, 150, 9850, 3000, 2000, now() - interval '1 hour')`,
      [paymentId, merchantId],
    );
    const refund = (id: string, status: string, completedAgo: string | null) =>
      sql(
        `INSERT INTO refunds.refunds (id, payment_id, merchant_id, environment, amount_cents, currency, status, idempotency_key, created_at, completed_at)
         VALUES ($1, $2, $3, 'test', 1000, 'USD', $4, $1, now() - interval '1 hour', now() - $5::interval)`,
        [id, paymentId, merchantId, status, completedAgo],
      );
    // Completed 5 minutes ago and never booked: missing. Completed a moment ago: on its way. Pending: moves no money yet.
    await refund(lost, 'completed', '5 minutes');
    await refund(recent, 'completed', '1 second');
    await refund(pending, 'pending', null);

    const check = await admin('ledger', 'check', '--merchant', merchantId);
    expect(check.code).toBe(1);
    expect(check.json).toMatchObject({ ok: false, pendingCompletedRefunds: 1, compared: { completedRefunds: 2 }, unreadable: [] });
    expect(check.json.findings).toEqual([
      {
        invariant: 'every completed refund has one refund posting of its amount, merchant and environment',
        count: 1,
        examples: [expect.objectContaining({ refund_id: lost, payment_id: paymentId, merchant_id: merchantId, amount_cents: '1000', postings: 0, matching_postings: 0 })],
      },
    ]);
    // Another merchant's check does not see it; the whole check does.
    expect((await admin('ledger', 'check', '--merchant', merchant.merchant_id)).json).toMatchObject({ ok: true, findings: [] });
    const all = await admin('ledger', 'check');
    expect(all.json.findings.find((f: any) => f.invariant.startsWith('every completed refund')).examples).toEqual([expect.objectContaining({ refund_id: lost })]);

    // The report as an operator reads it names the broken invariant and the refund, and exits 1 too.
    const text = await runAdmin(['ledger', 'check', '--merchant', merchantId], { json: false });
    expect(text.code).toBe(1);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe(`ledger check (merchant ${merchantId}): 0 postings, 1 invariant(s) broken.`);
    expect(lines[1]).toBe('BROKEN: every completed refund has one refund posting of its amount, merchant and environment: 1 row(s)');
    expect(lines[2]).toContain(`"refund_id":"${lost}"`);
    expect(lines).toContain('Compared with 0 payment(s) of sessions and 2 completed refund(s) of the refunds service.');
    expect(lines).toContain('1 refund(s) completed in the last 60 s not booked yet (on their way).');
  });

  it('ledger check reports a refund posting the refunds service never completed', async () => {
    const owner = await stack.createMerchant({ verified: true, testLimit: 10000 });
    const paid = await paidIntent('30.00', 'crypto', owner.test_key);
    await waitFor(async () => (await available(owner.test_key)) === paid.net_amount, 30_000, 'the payment to be booked');
    expect((await admin('ledger', 'check', '--merchant', owner.merchant_id)).json).toMatchObject({ ok: true, findings: [] });

    // A refund.completed on the refunds topic that the refunds service never wrote: the ledger books it (it trusts
    // its topic); the check finds no completed refund behind the posting.
    const refundId = someId('re_');
    const now = new Date().toISOString();
    const event = {
      ...paymentEvent({}),
      type: 'refund.completed',
      aggregate_type: 'refund',
      aggregate_id: refundId,
      merchant_id: owner.merchant_id,
      sequence: 2,
      data: {
        object: { id: refundId, object: 'refund', payment_id: paid.payment_id, amount: '5.00', currency: 'USD', reason: null, status: 'completed', failure_reason: null, environment: 'test', created_at: now, completed_at: now },
        payment: { id: paid.payment_id, source: paid.id, method: 'crypto', amount: '30.00', currency: 'USD' },
      },
    };
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic: topicName(stack.namespace, STREAMS.refunds), messages: [{ key: refundId, value: JSON.stringify(event) }] });
    await producer.disconnect();
    await waitFor(async () => (await call('/api/v1/balance-transactions?type=refund', owner.test_key)).body.data.length === 1, 30_000, 'the forged refund to be booked');

    const check = await admin('ledger', 'check', '--merchant', owner.merchant_id);
    expect(check.code).toBe(1);
    expect(check.json.findings).toEqual([
      {
        invariant: 'every refund posting matches a completed refund',
        count: 1,
        examples: [expect.objectContaining({ refund_id: refundId, payment_id: paid.payment_id, merchant_id: owner.merchant_id, amount_cents: '500' })],
      },
    ]);
  });

  it('ledger check reports a payment sessions made that the ledger never booked, and waits for one on its way', async () => {
    const merchantId = someId('acct_chk');
    const lost = somePaymentId();
    const recent = somePaymentId();
    const payment = (id: string, paidAgo: string) =>
      sql(
        `INSERT INTO sessions.payments (id, merchant_id, environment, source_type, source_id, method, currency, amount_cents, fee_cents, net_cents, paid_at)
         VALUES ($1, $2, 'test', 'payment_intent', $3, 'crypto', 'USD', 2000, 30, 1970, now() - $4::interval)`,
        [id, merchantId, someId('pi_test_'), paidAgo],
      );
    // Paid 5 minutes ago, its event never booked: missing. Paid a moment ago: on its way.
    await payment(lost, '5 minutes');
    await payment(recent, '1 second');
    const check = await admin('ledger', 'check', '--merchant', merchantId);
    expect(check.code).toBe(1);
    expect(check.json).toMatchObject({ ok: false, pendingPayments: 1, compared: { sessionsPayments: 2, completedRefunds: 0 } });
    expect(check.json.findings).toEqual([
      { invariant: 'every payment sessions made is booked', count: 1, examples: [expect.objectContaining({ payment_id: lost, merchant_id: merchantId, environment: 'test' })] },
    ]);
  });

  it("ledger check is not ok when an owner's data cannot be read, and says which", async () => {
    const check = await runAdmin(['ledger', 'check', '--merchant', merchant.merchant_id], { env: { REFUNDS_DB_SCHEMA: 'refunds_elsewhere' } });
    expect(check.code).toBe(1);
    expect(check.json).toMatchObject({
      ok: false,
      unreadable: [{ owner: 'refunds', table: 'refunds_elsewhere.refunds', reason: 'no table refunds_elsewhere.refunds in this database' }],
      compared: { completedRefunds: null },
    });
    expect(check.json.findings).toEqual([expect.objectContaining({ invariant: "the refunds service's refunds can be read (without them the check is incomplete)" })]);
    const text = await runAdmin(['ledger', 'check', '--merchant', merchant.merchant_id], { json: false, env: { SESSIONS_DB_SCHEMA: 'sessions_elsewhere' } });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('INCOMPLETE: the sessions service\'s data could not be read (no table sessions_elsewhere.payments in this database)');
    // Asked for the journal alone, the merchant's journal is clean and the report says what was left out.
    const journalOnly = await runAdmin(['ledger', 'check', '--merchant', merchant.merchant_id, '--journal-only'], { env: { REFUNDS_DB_SCHEMA: 'refunds_elsewhere' } });
    expect(journalOnly).toMatchObject({ code: 0, json: { ok: true, compared: null, unreadable: [] } });
  });
});
