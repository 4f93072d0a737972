import { parseMoneyString } from '@payments/money';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { STREAMS, topicName } from '@payments/events';
import { collectMessages, startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// Refunds as merchants meet them, through the gateway: the payment's remainder is never overdrawn, whatever
// arrives at once, a key makes one refund, and the refund's events go out on the refunds topic.
describe('refunds', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let other: TestMerchant;

  const refund = (paymentId: string, body: object | undefined, key: string | null = randomUUID(), apiKey = merchant.test_key) =>
    stack.call('POST', `/api/v1/payments/${paymentId}/refunds`, { key: apiKey, body, headers: key === null ? {} : { 'Idempotency-Key': key } });
  const get = (path: string, apiKey = merchant.test_key) => stack.call('GET', path, { key: apiKey });

  async function paidIntent(amount: string, method = 'togo', key = merchant.test_key) {
    const intent = (await stack.call('POST', '/api/v1/payment-intents', { key, body: { amount, currency: 'USD' }, headers: { 'Idempotency-Key': randomUUID() } })).body;
    const paid = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key, body: { result: 'succeeded', method } });
    expect(paid.status).toBe(200);
    return paid.body as { id: string; payment_id: string; fee: string; net_amount: string };
  }

  beforeAll(async () => {
    stack = await startStack(['sessions', 'refunds', 'gateway'], { RATE_LIMIT_TEST_PER_SEC: '10000' });
    // Verified, so it has a live key: a test payment is not found with it.
    merchant = await stack.createMerchant({ verified: true });
    other = await stack.createMerchant();
  }, 120_000);

  afterAll(() => stack?.stop());

  it('refunds part, then the rest by default, then refuses more; the payment shows its refunds', async () => {
    const paid = await paidIntent('15.00');
    const first = await refund(paid.payment_id, { amount: '5.00', reason: 'damaged' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^re_[A-Za-z0-9]{24}$/),
      object: 'refund',
      payment_id: paid.payment_id,
      amount: '5.00',
      currency: 'USD',
      reason: 'damaged',
      status: 'completed',
      failure_reason: null,
      environment: 'test',
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect((await get(`/api/v1/refunds/${first.body.id}`)).body).toEqual(first.body);

    const partly = await get(`/api/v1/payments/${paid.payment_id}`);
    expect(partly.status).toBe(200);
    expect(partly.body).toMatchObject({
      id: paid.payment_id,
      object: 'payment',
      amount: '15.00',
      refunded_amount: '5.00',
      status: 'partially_refunded',
      source: paid.id,
      method: 'togo',
      fee: paid.fee,
      net: paid.net_amount,
      environment: 'test',
    });
    expect(partly.body.refunds).toEqual([first.body]);

    const rest = await refund(paid.payment_id, {});
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: '10.00', reason: null, status: 'completed' });

    const more = await refund(paid.payment_id, { amount: '0.01' });
    expect(more.status).toBe(409);
    expect(more.body.error).toMatchObject({ code: 'refund_exceeds_payment', param: 'amount' });
    expect(more.body.error.message).toMatch(/nothing remains/);

    const full = (await get(`/api/v1/payments/${paid.payment_id}`)).body;
    expect(full).toMatchObject({ refunded_amount: '15.00', status: 'refunded' });
    expect(full.refunds.map((r: { id: string }) => r.id)).toEqual([first.body.id, rest.body.id]);
  });

  it('a refund sent without a body refunds what remains, as {} does', async () => {
    const paid = await paidIntent('7.00');
    const key = randomUUID();
    const res = await refund(paid.payment_id, undefined, key);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ payment_id: paid.payment_id, amount: '7.00', reason: null, status: 'completed' });
    expect((await get(`/api/v1/payments/${paid.payment_id}`)).body).toMatchObject({ refunded_amount: '7.00', status: 'refunded' });
    // The same request to its key: retried with `{}`, or again without a body, it gets the first answer.
    for (const body of [{}, undefined]) {
      const again = await refund(paid.payment_id, body, key);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(res.body);
    }
  });

  it('names what remains when a refund asks for more', async () => {
    const paid = await paidIntent('10.00');
    expect((await refund(paid.payment_id, { amount: '7.50' })).status).toBe(201);
    const tooMuch = await refund(paid.payment_id, { amount: '3.00' });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error).toMatchObject({ code: 'refund_exceeds_payment', param: 'amount' });
    expect(tooMuch.body.error.message).toContain('2.50 USD');
  });

  it('50 concurrent refunds of 2.00 from 15.00: exactly 7 succeed, the rest are refused, the sums are exact', async () => {
    const paid = await paidIntent('15.00');
    const answers = await Promise.all(Array.from({ length: 50 }, () => refund(paid.payment_id, { amount: '2.00' })));
    const made = answers.filter((a) => a.status === 201);
    expect(made).toHaveLength(7);
    expect(answers.filter((a) => a.status === 409 && a.body.error.code === 'refund_exceeds_payment')).toHaveLength(43);
    expect(new Set(made.map((a) => a.body.id)).size).toBe(7);
    const payment = (await get(`/api/v1/payments/${paid.payment_id}`)).body;
    expect(payment).toMatchObject({ refunded_amount: '14.00', status: 'partially_refunded' });
    expect(payment.refunds).toHaveLength(7);
    // What is left can still be refunded.
    expect((await refund(paid.payment_id, {})).body).toMatchObject({ amount: '1.00', status: 'completed' });
  });

  it('refunds asking for what remains, alongside ones with amounts, leave the payment refunded exactly in full', async () => {
    const paid = await paidIntent('20.00');
    const answers = await Promise.all([...Array(4).fill({ amount: '1.00' }), ...Array(4).fill({})].map((body: object) => refund(paid.payment_id, body)));
    const made = answers.filter((a) => a.status === 201);
    expect(answers.filter((a) => a.status !== 201).map((a) => a.body.error.code)).toEqual(Array(8 - made.length).fill('refund_exceeds_payment'));
    const total = made.reduce((sum, a) => {
      const parsed = parseMoneyString(a.body.amount, { minCents: 0 });
      return sum + (parsed.ok ? parsed.cents : NaN);
    }, 0);
    expect(total).toBe(2000);
    expect((await get(`/api/v1/payments/${paid.payment_id}`)).body).toMatchObject({ refunded_amount: '20.00', status: 'refunded' });
  });

  it('20 concurrent requests with one key make one refund, answered alike', async () => {
    const paid = await paidIntent('20.00');
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(paid.payment_id, { amount: '3.00' }, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length).toBeGreaterThanOrEqual(19);
    expect((await get(`/api/v1/payments/${paid.payment_id}`)).body).toMatchObject({ refunded_amount: '3.00' });

    // The same key with another body is refused; with the same body it replays byte for byte.
    const changed = await refund(paid.payment_id, { amount: '4.00' }, key);
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('idempotency_key_reused');
    const again = await refund(paid.payment_id, { amount: '3.00' }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(answers[0]!.body);
  });

  it('a key reused for another refund after the gateway forgot it is refused by the refunds service, never answered with the old refund', async () => {
    const paid = await paidIntent('20.00');
    const other = await paidIntent('20.00');
    const key = randomUUID();
    const first = await refund(paid.payment_id, { amount: '3.00', reason: 'damaged' }, key);
    expect(first.status).toBe(201);
    // The gateway's record of the key is gone (its 24 h passed, or Redis lost it): the refunds service decides.
    const forget = async () => {
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      try {
        await redis.del(`${stack.namespace}:idempotency:${merchant.merchant_id}:test:${key}`);
      } finally {
        redis.disconnect();
      }
    };
    for (const [paymentId, body] of [
      [paid.payment_id, { amount: '4.00', reason: 'damaged' }],
      [paid.payment_id, { amount: '3.00', reason: 'late' }],
      [other.payment_id, { amount: '3.00', reason: 'damaged' }],
      [other.payment_id, {}],
    ] as const) {
      await forget();
      const reused = await refund(paymentId, body, key);
      expect([reused.status, reused.body.error?.code]).toEqual([409, 'idempotency_key_reused']);
    }
    await forget();
    const retried = await refund(paid.payment_id, { amount: '3.00', reason: 'damaged' }, key);
    expect([retried.status, retried.body.id]).toEqual([201, first.body.id]);
    expect((await get(`/api/v1/payments/${paid.payment_id}`)).body).toMatchObject({ refunded_amount: '3.00' });
    expect((await get(`/api/v1/payments/${other.payment_id}`)).body).toMatchObject({ refunded_amount: '0.00' });
  });

  it('refuses bad requests with a clear error and stores nothing', async () => {
    const paid = await paidIntent('9.00');
    const cases: Array<[object, string | null, string, string]> = [
      [{ amount: '1.00' }, null, 'idempotency_key_required', 'Idempotency-Key'],
      [{ amount: '0.00' }, randomUUID(), 'invalid_request', 'amount'],
      [{ amount: '1.001' }, randomUUID(), 'invalid_request', 'amount'],
      [{ amount: 5 }, randomUUID(), 'invalid_request', 'amount'],
      [{ amount: '100000000000.00' }, randomUUID(), 'invalid_request', 'amount'],
      [{ reason: 'r'.repeat(256) }, randomUUID(), 'invalid_request', 'reason'],
      [{ amount: '1.00', currency: 'USD' }, randomUUID(), 'invalid_request', 'currency'],
    ];
    for (const [body, key, code, param] of cases) {
      const answer = await refund(paid.payment_id, body, key);
      expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({ body, status: 400, code });
      if (code === 'invalid_request') expect(answer.body.error.param).toBe(param);
    }
    expect((await refund(paid.payment_id, { reason: 'r'.repeat(255) })).status).toBe(201);
    expect((await get(`/api/v1/payments/${paid.payment_id}`)).body.refunds).toHaveLength(1);
  });

  it('answers 404 for an unknown payment, another merchant\'s and the other environment\'s', async () => {
    const paid = await paidIntent('5.00');
    for (const [id, key] of [
      ['123456789', merchant.test_key],
      ['not-a-payment', merchant.test_key],
      ['99999999999999999999', merchant.test_key],
      [paid.payment_id, other.test_key],
      [paid.payment_id, merchant.live_key!],
    ] as const) {
      const answer = await refund(id, { amount: '1.00' }, randomUUID(), key);
      expect({ id, status: answer.status, code: answer.body.error?.code }).toEqual({ id, status: 404, code: 'not_found' });
      expect((await get(`/api/v1/payments/${id}`, key)).status).toBe(404);
    }
    expect((await get('/api/v1/refunds/re_000000000000000000000000')).status).toBe(404);
    const made = await refund(paid.payment_id, { amount: '1.00' });
    expect((await get(`/api/v1/refunds/${made.body.id}`, other.test_key)).status).toBe(404);
  });

  it('lists payments and refunds newest first with cursor pagination, refunds optionally of one payment', async () => {
    const shop = await stack.createMerchant();
    const payments = [];
    for (const amount of ['3.00', '4.00', '5.00']) payments.push(await paidIntent(amount, 'togo', shop.test_key));
    const refunds = [];
    for (const p of payments) refunds.push((await refund(p.payment_id, { amount: '1.00' }, randomUUID(), shop.test_key)).body);
    await waitFor(async () => (await get('/api/v1/payments?limit=10', shop.test_key)).body.data.length === 3, 20_000, 'the payments to be listed');

    const first = (await get('/api/v1/payments?limit=2', shop.test_key)).body;
    expect(first.has_more).toBe(true);
    expect(first.data.map((p: { id: string }) => p.id)).toEqual([payments[2]!.payment_id, payments[1]!.payment_id]);
    expect(first.data[0].refunds).toEqual([refunds[2]]);
    const second = (await get(`/api/v1/payments?limit=2&starting_after=${first.data[1].id}`, shop.test_key)).body;
    expect(second).toMatchObject({ has_more: false, data: [{ id: payments[0]!.payment_id }] });

    const all = (await get('/api/v1/refunds?limit=100', shop.test_key)).body;
    expect(all.data.map((r: { id: string }) => r.id)).toEqual(refunds.map((r) => r.id).reverse());
    const paged = (await get(`/api/v1/refunds?limit=1&starting_after=${refunds[2].id}`, shop.test_key)).body;
    expect(paged).toMatchObject({ has_more: true, data: [{ id: refunds[1].id }] });
    const ofOne = (await get(`/api/v1/refunds?payment_id=${payments[1]!.payment_id}`, shop.test_key)).body;
    expect(ofOne.data).toEqual([refunds[1]]);
    expect((await get('/api/v1/refunds?limit=0', shop.test_key)).status).toBe(400);
    expect((await get('/api/v1/refunds?starting_after=nope', shop.test_key)).status).toBe(400);
    expect((await get(`/api/v1/refunds?starting_after=${refunds[0].id}`, merchant.test_key)).status).toBe(400);
  });

  it('publishes refund.created and refund.completed on the refunds topic, with the refund, its payment and the request that caused them', async () => {
    const paid = await paidIntent('8.00');
    const key = randomUUID();
    const answer = await refund(paid.payment_id, { amount: '2.00' }, key);
    const made = answer.body;
    const messages = await collectMessages(topicName(stack.namespace, STREAMS.refunds), 2, 20_000, undefined, (m) => m.key === made.id);
    const events = messages.map((m) => JSON.parse(m.value!));
    expect(events.map((e) => [e.type, e.sequence])).toEqual([
      ['refund.created', 1],
      ['refund.completed', 2],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ aggregate_type: 'refund', aggregate_id: made.id, merchant_id: merchant.merchant_id, environment: 'test' });
      // The chain as the envelope defines it: the request, and the command (its Idempotency-Key) that caused them.
      expect(event).toMatchObject({ correlation_id: answer.headers.get('request-id'), causation_id: key });
      expect(event.data).toEqual({ object: made, payment: { id: paid.payment_id, source: paid.id, method: 'togo', amount: '8.00', currency: 'USD' } });
    }
  });

  it('reads and refunds a crypto payment over-paid past what a session may ask (a payment is what was received)', async () => {
    // What the payment's event leaves in this service's copy: 999,999.00 asked, 1,000,000.00 received, 1.5 % fee.
    const refundsDb = await stack.db.dataSource('refunds');
    const paymentId = String(8_000_000_000_000_000 + Math.floor(Math.random() * 1e12));
    await refundsDb.query(
      `INSERT INTO refunds.payments (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, paid_at, external_ref)
       VALUES ($1, $2, 'test', $3, 'crypto', 'USD', 100000000, 1500000, 98500000, now(), NULL)`,
      [paymentId, merchant.merchant_id, `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`],
    );
    const read = await get(`/api/v1/payments/${paymentId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ amount: '1000000.00', fee: '15000.00', net: '985000.00', refunded_amount: '0.00', status: 'succeeded' });

    const part = await refund(paymentId, { amount: '999999.99' });
    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({ amount: '999999.99', status: 'completed' });
    const more = await refund(paymentId, { amount: '0.02' });
    expect(more.status).toBe(409);
    expect(more.body.error).toMatchObject({ code: 'refund_exceeds_payment' });
    const rest = await refund(paymentId, { amount: '0.01' });
    expect(rest.status).toBe(201);
    expect((await get(`/api/v1/payments/${paymentId}`)).body).toMatchObject({ refunded_amount: '1000000.00', status: 'refunded' });

    // A whole over-paid payment refunded by its amount, beyond the largest a session may ask.
    const second = String(Number(paymentId) + 1);
    await refundsDb.query(
      `INSERT INTO refunds.payments (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, paid_at, external_ref)
       VALUES ($1, $2, 'test', $3, 'crypto', 'USD', 100000000, 1500000, 98500000, now(), NULL)`,
      [second, merchant.merchant_id, `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`],
    );
    const whole = await refund(second, { amount: '1000000.00' });
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({ amount: '1000000.00', status: 'completed' });
  });
});

// A refund asked the moment a payment succeeded, before its event reached the refunds service: the service asks
// sessions, the payment's owner, instead of answering 404. Here the event never arrives (the refunds service
// follows another namespace's topics), so every payment is learnt from sessions.
describe('refunds before the payment event arrives', () => {
  let stack: Stack;
  let merchant: TestMerchant;

  beforeAll(async () => {
    stack = await startStack(['sessions', 'refunds', 'gateway'], {}, { refunds: { KAFKA_NAMESPACE: `held_${randomUUID().slice(0, 8)}` } });
    merchant = await stack.createMerchant();
  }, 120_000);

  afterAll(() => stack?.stop());

  it('asks sessions for the payment and refunds it; another merchant still gets 404', async () => {
    const key = merchant.test_key;
    const intent = (await stack.call('POST', '/api/v1/payment-intents', { key, body: { amount: '12.00', currency: 'USD' }, headers: { 'Idempotency-Key': randomUUID() } })).body;
    const paid = (await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key, body: { result: 'succeeded', method: 'lahza' } })).body;
    const made = await stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key, body: { amount: '2.00' }, headers: { 'Idempotency-Key': randomUUID() } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ payment_id: paid.payment_id, amount: '2.00', status: 'completed' });
    expect((await stack.call('GET', `/api/v1/payments/${paid.payment_id}`, { key })).body).toMatchObject({ refunded_amount: '2.00', source: intent.id, method: 'lahza' });

    const stranger = await stack.createMerchant();
    const refused = await stack.call('POST', `/api/v1/payments/${paid.payment_id}/refunds`, { key: stranger.test_key, body: {}, headers: { 'Idempotency-Key': randomUUID() } });
    expect(refused.status).toBe(404);
    expect((await stack.call('GET', `/api/v1/payments/${paid.payment_id}`, { key: stranger.test_key })).status).toBe(404);
  });

});
