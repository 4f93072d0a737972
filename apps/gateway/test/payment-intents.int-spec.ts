import { randomUUID } from 'node:crypto';
import { Stack, startStack, TestMerchant } from '@payments/testing';

// createPaymentIntent / getPaymentIntent / simulate / cancel through the gateway, as a merchant's server calls them.
describe('payment intents API', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let unverified: TestMerchant;

  const valid = { amount: '74.00', currency: 'USD' };
  const create = (body: unknown, key = merchant.test_key, idempotencyKey: string = randomUUID()) =>
    stack.call('POST', '/api/v1/payment-intents', { key, body, headers: { 'idempotency-key': idempotencyKey } });

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway'], { PUBLIC_BASE_URL: 'https://pay.example.com' });
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    unverified = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates an intent with every field of the spec and finds it at once', async () => {
    const res = await create({
      amount: '74',
      currency: 'USD',
      external_ref: 'order-1',
      description: 'Two books',
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
      customer: { name: 'Ada', email: 'ada@example.com', phone: '+970599123456', city: 'Ramallah', country: 'PS' },
      metadata: { order: 'A-1' },
      unknown_top_level_field: 'allowed by the spec',
    });
    expect(res.status).toBe(201);
    const intent = res.body;
    expect(intent).toMatchObject({
      id: expect.stringMatching(/^pi_test_[A-Za-z0-9]{24}$/),
      object: 'payment_intent',
      status: 'requires_payment_method',
      amount: '74.00',
      currency: 'USD',
      fee: '0.00',
      net_amount: '74.00',
      payment_method: null,
      external_ref: 'order-1',
      paid: false,
      available_methods: ['togo', 'lahza', 'crypto'],
      checkout_url: `https://pay.example.com/checkout/${intent.id}`,
      crypto: { requested_amount: '74.00', received_amount: '0.00', remaining_amount: '74.00', overpayment_amount: '0.00' },
      paid_at: null,
    });
    expect(Date.parse(intent.expires_at) - Date.parse(intent.created_at)).toBe(1800 * 1000);
    expect(res.headers.get('request-id')).toBeTruthy();
    expect(res.headers.get('ratelimit-limit')).toBe('10000');

    const got = await stack.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: merchant.test_key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(intent);
  });

  it('honours methods and expires_in, and refuses methods the merchant has not enabled', async () => {
    const res = await create({ ...valid, methods: ['crypto', 'togo'], expires_in: 300 });
    expect(res.status).toBe(201);
    expect(res.body.available_methods).toEqual(['crypto', 'togo']);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(300 * 1000);

    const narrow = await stack.createMerchant({ testLimit: 10000 });
    await stack.admin('merchant', 'methods', '--id', narrow.merchant_id, '--methods', 'togo');
    await new Promise((r) => setTimeout(r, 1100)); // the gateway's merchant cache holds at most 1 s
    const defaulted = await create(valid, narrow.test_key);
    expect(defaulted.body.available_methods).toEqual(['togo']);
    const refused = await create({ ...valid, methods: ['crypto'] }, narrow.test_key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('payment_methods_unavailable');
  });

  const badBodies: Array<[string, Record<string, unknown>, string]> = [
    ['amount missing', { currency: 'USD' }, 'amount'],
    ['amount as a number', { amount: 74, currency: 'USD' }, 'amount'],
    ['amount with three decimals', { amount: '1.234', currency: 'USD' }, 'amount'],
    ['amount with a sign', { amount: '-5', currency: 'USD' }, 'amount'],
    ['amount with spaces', { amount: ' 5', currency: 'USD' }, 'amount'],
    ['amount zero', { amount: '0.00', currency: 'USD' }, 'amount'],
    ['amount below the minimum', { amount: '0.49', currency: 'USD' }, 'amount'],
    ['amount above the maximum', { amount: '1000000.00', currency: 'USD' }, 'amount'],
    ['currency missing', { amount: '5' }, 'currency'],
    ['currency not USD', { amount: '5', currency: 'EUR' }, 'currency'],
    ['external_ref too long', { ...valid, external_ref: 'x'.repeat(121) }, 'external_ref'],
    ['external_ref not a string', { ...valid, external_ref: 5 }, 'external_ref'],
    ['description too long', { ...valid, description: 'x'.repeat(256) }, 'description'],
    ['success_url over http', { ...valid, success_url: 'http://shop.example/ok' }, 'success_url'],
    ['cancel_url not a URI', { ...valid, cancel_url: 'https://' }, 'cancel_url'],
    ['methods with an unknown method', { ...valid, methods: ['card'] }, 'methods'],
    ['methods repeated', { ...valid, methods: ['togo', 'togo'] }, 'methods'],
    ['methods not an array', { ...valid, methods: 'togo' }, 'methods'],
    ['customer with an extra property', { ...valid, customer: { name: 'A', vip: true } }, 'customer.vip'],
    ['customer name too long', { ...valid, customer: { name: 'x'.repeat(161) } }, 'customer.name'],
    ['customer email malformed', { ...valid, customer: { email: 'not-an-email' } }, 'customer.email'],
    ['customer city too long', { ...valid, customer: { city: 'x'.repeat(121) } }, 'customer.city'],
    ['customer country of 3 letters', { ...valid, customer: { country: 'PSE' } }, 'customer.country'],
    ['customer not an object', { ...valid, customer: 'Ada' }, 'customer'],
    ['metadata not an object', { ...valid, metadata: ['a'] }, 'metadata'],
    ['metadata with 51 keys', { ...valid, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['metadata key too long', { ...valid, metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    ['metadata value too long', { ...valid, metadata: { k: 'v'.repeat(501) } }, 'metadata'],
    ['expires_in below 300', { ...valid, expires_in: 299 }, 'expires_in'],
    ['expires_in above 86400', { ...valid, expires_in: 86401 }, 'expires_in'],
    ['expires_in not an integer', { ...valid, expires_in: 300.5 }, 'expires_in'],
    ['expires_in as a string', { ...valid, expires_in: '600' }, 'expires_in'],
  ];

  it.each(badBodies)('400 invalid_request for %s, naming the field, and nothing is stored', async (_name, body, param) => {
    const key = randomUUID();
    const res = await create(body, merchant.test_key, key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String), param, request_id: expect.any(String) } });
    // A 400 is not stored: the same key works once the body is fixed.
    const fixed = await create(valid, merchant.test_key, key);
    expect(fixed.status).toBe(201);
  });

  it('400 for malformed JSON, a non-JSON content type and a body over 64 KiB', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    const malformed = await stack.call('POST', '/api/v1/payment-intents', { key: merchant.test_key, body: '{"amount":', headers });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    const text = await stack.call('POST', '/api/v1/payment-intents', { key: merchant.test_key, body: 'amount=5', headers: { ...headers, 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('invalid_request');
    const huge = await create({ ...valid, description: 'x'.repeat(70 * 1024) });
    expect(huge.status).toBe(400);
    expect(huge.body.error.code).toBe('invalid_request');
  });

  it('requires an Idempotency-Key of at most 190 characters and replays the first answer', async () => {
    const missing = await stack.call('POST', '/api/v1/payment-intents', { key: merchant.test_key, body: valid });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('idempotency_key_required');
    const long = await create(valid, merchant.test_key, 'k'.repeat(191));
    expect(long.status).toBe(400);

    const key = randomUUID();
    const first = await create(valid, merchant.test_key, key);
    const again = await create(valid, merchant.test_key, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await create({ ...valid, amount: '75.00' }, merchant.test_key, key);
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('idempotency_key_reused');
  });

  it('makes one intent from 20 concurrent duplicates', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(valid, merchant.test_key, key)));
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(answers.every((a) => a.status === 201 || a.body.error?.code === 'idempotency_request_in_progress')).toBe(true);
    const [row] = await (await stack.db.dataSource('public')).query('SELECT count(*)::int AS n FROM sessions.payment_intents WHERE id = $1', [[...ids][0]]);
    expect(row.n).toBe(1);
  });

  it('404 for unknown ids, another merchant\'s intent and the other environment', async () => {
    const mine = (await create(valid)).body;
    const other = await stack.createMerchant({ testLimit: 10000 });
    for (const [key, id] of [
      [merchant.test_key, 'pi_test_doesnotexist000000000000'],
      [merchant.test_key, 'not-an-intent-id'],
      [other.test_key, mine.id],
      [merchant.live_key!, mine.id],
    ]) {
      const res = await stack.call('GET', `/api/v1/payment-intents/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    }
  });

  it('keys: 401 for missing, malformed, unknown or wrong-secret keys; 403 for an unverified live key', async () => {
    const [prefix] = merchant.test_key.split('.');
    for (const authorization of [undefined, 'Bearer', 'Bearer nope', 'Basic abc', `Bearer ${prefix}.wrongsecret`, 'Bearer pay_test_unknownkey.secretsecretsecret']) {
      const res = await stack.call('GET', '/api/v1/payment-intents/pi_test_x', { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    expect(unverified.live_key).toBeUndefined();
    const testWorks = await create(valid, unverified.test_key);
    expect(testWorks.status).toBe(201);
  });

  it('simulate succeeded: paid, fee from the fee policy, net and a numeric payment id', async () => {
    const intent = (await create({ ...valid, amount: '200.00' })).body;
    const res = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key: merchant.test_key, body: { result: 'succeeded', method: 'crypto' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'crypto', fee: '3.00', net_amount: '197.00', payment_id: expect.stringMatching(/^[1-9]\d+$/) });
    expect(res.body.paid_at).toEqual(expect.any(String));
    const got = await stack.call('GET', `/api/v1/payment-intents/${intent.id}`, { key: merchant.test_key });
    expect(got.body).toEqual(res.body);
    const again = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/cancel`, { key: merchant.test_key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('simulate failed then succeeded with the default method (togo, 0.5%)', async () => {
    const intent = (await create(valid)).body;
    const failed = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key: merchant.test_key, body: { result: 'failed' } });
    expect(failed.body).toMatchObject({ status: 'failed', paid: false });
    const ok = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key: merchant.test_key, body: { result: 'succeeded' } });
    expect(ok.body).toMatchObject({ status: 'succeeded', payment_method: 'togo', fee: '0.37', net_amount: '73.63' });
  });

  it('simulate is for test keys only and validates its body', async () => {
    const live = (await create(valid, merchant.live_key!)).body;
    expect(live.id).toMatch(/^pi_live_/);
    const res = await stack.call('POST', `/api/v1/payment-intents/${live.id}/simulate`, { key: merchant.live_key, body: { result: 'succeeded' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('live_mode_not_allowed');
    // A live key is refused before its body is read: 403 whatever the body.
    for (const body of [{}, { result: 'maybe' }, { result: 'succeeded', extra: 1 }]) {
      const refused = await stack.call('POST', `/api/v1/payment-intents/${live.id}/simulate`, { key: merchant.live_key, body });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'live_mode_not_allowed']);
    }
    const test = (await create(valid)).body;
    const bad = await stack.call('POST', `/api/v1/payment-intents/${test.id}/simulate`, { key: merchant.test_key, body: { result: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('result');
  });

  it('cancel moves an open intent to cancelled, which is final', async () => {
    const intent = (await create(valid)).body;
    const res = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/cancel`, { key: merchant.test_key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    const sim = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key: merchant.test_key, body: { result: 'succeeded' } });
    expect(sim.status).toBe(409);
    expect(sim.body.error.code).toBe('invalid_state');
  });
});
