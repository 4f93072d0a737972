import { randomUUID } from 'node:crypto';
import { Stack, startStack, TestMerchant } from '@payments/testing';

// The invoice surface through the gateway: create, read, simulate, numbers, payment details.
describe('invoices API', () => {
  let stack: Stack;
  let merchant: TestMerchant;

  const valid = {
    amount: '120.50',
    currency: 'USD',
    external_ref: 'inv-ref-1',
    description: 'Consulting, March',
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
  };
  const create = (body: unknown, key = merchant.test_key, idempotencyKey: string = randomUUID()) =>
    stack.call('POST', '/api/v1/invoices', { key, body, headers: { 'idempotency-key': idempotencyKey } });
  const simulate = (id: string, body: unknown, key = merchant.test_key) => stack.call('POST', `/api/v1/invoices/${id}/simulate`, { key, body });
  const get = (id: string, key = merchant.test_key) => stack.call('GET', `/api/v1/invoices/${id}`, { key });

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway'], { PUBLIC_BASE_URL: 'https://pay.example.com' });
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a pending invoice exactly as the spec shows it', async () => {
    const res = await create(valid);
    expect(res.status).toBe(201);
    const invoice = res.body;
    expect(invoice).toEqual({
      id: expect.stringMatching(/^inv_test_[A-Za-z0-9]{24}$/),
      number: expect.stringMatching(/^\d+$/),
      status: 'pending',
      environment: 'test',
      amount: '120.50',
      currency: 'USD',
      fee: '0.00',
      net: '120.50',
      external_ref: 'inv-ref-1',
      description: 'Consulting, March',
      checkout_url: `https://pay.example.com/checkout/${invoice.id}`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      expires_at: expect.stringMatching(/Z$/),
      paid_at: null,
      metadata: {},
      payment: null,
    });
    expect(Date.parse(invoice.expires_at) - Date.parse(invoice.created_at)).toBe(24 * 3600 * 1000);
    expect((await get(invoice.id)).body).toEqual(invoice);
  });

  it('numbers invoices per merchant and environment from 1001, with no duplicate or gap under 50 concurrent creates', async () => {
    const fresh = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(valid, fresh.test_key)));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const numbers = answers.map((a) => Number(a.body.number)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => 1001 + i));
    const live = await create(valid, fresh.live_key);
    expect(live.body).toMatchObject({ number: '1001', environment: 'live', id: expect.stringMatching(/^inv_[A-Za-z0-9]{24}$/) });
  });

  it('accepts the optional intent fields and rejects unknown top-level fields', async () => {
    const res = await create({ ...valid, methods: ['wallet', 'crypto'], customer: { name: 'Ada' }, metadata: { po: '7' }, expires_in: 600 });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ po: '7' });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(600 * 1000);
    const unknown = await create({ ...valid, surprise: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', param: 'surprise' });
  });

  it.each([
    ['amount', { ...valid, amount: '12.345' }],
    ['amount', { ...valid, amount: '0.10' }],
    ['currency', { ...valid, currency: 'usd' }],
    ['external_ref', { ...valid, external_ref: 'r'.repeat(121) }],
    ['description', { ...valid, description: 'd'.repeat(256) }],
    ['success_url', { ...valid, success_url: 'http://shop.example/ok' }],
    ['cancel_url', { ...valid, cancel_url: 'ftp://shop.example' }],
    ['methods', { ...valid, methods: ['card'] }],
    ['customer.email', { ...valid, customer: { email: 'x' } }],
    ['metadata', { ...valid, metadata: 'none' }],
    ['expires_in', { ...valid, expires_in: 10 }],
  ])('400 naming %s', async (param, body) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('requires an Idempotency-Key and creates one invoice per key', async () => {
    const missing = await stack.call('POST', '/api/v1/invoices', { key: merchant.test_key, body: valid });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('idempotency_key_required');
    const key = randomUUID();
    const first = await create(valid, merchant.test_key, key);
    const again = await create(valid, merchant.test_key, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('simulate paid fills fee, net, paid_at and the payment with a masked phone', async () => {
    const invoice = (await create({ ...valid, amount: '200.00', customer: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+970599123456', country: 'PS' } })).body;
    const res = await simulate(invoice.id, { result: 'paid' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: invoice.id, status: 'paid', environment: 'test' });
    const paid = (await get(invoice.id)).body;
    expect(paid).toMatchObject({ status: 'paid', fee: '1.00', net: '199.00', paid_at: expect.any(String) });
    expect(paid.payment).toEqual({
      reference: expect.stringMatching(/^[1-9]\d+$/),
      method: 'wallet',
      payer_name: expect.any(String),
      payer_email: expect.any(String),
      payer_phone: expect.any(String),
      payer_country: expect.stringMatching(/^[A-Z]{2}$/),
      paid_at: paid.paid_at,
    });
    const digits = paid.payment.payer_phone.replace(/\D/g, '');
    expect(paid.payment.payer_phone).toContain('*');
    expect(digits.length).toBe(7); // first 4 and last 3 digits visible
    const again = await simulate(invoice.id, { result: 'paid' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('crypto payments carry the 1.5% fee', async () => {
    const invoice = (await create({ ...valid, amount: '100.00' })).body;
    await simulate(invoice.id, { result: 'paid', method: 'crypto' });
    expect((await get(invoice.id)).body).toMatchObject({ fee: '1.50', net: '98.50', payment: { method: 'crypto' } });
  });

  it('a failed invoice can still be paid; an expired one cannot', async () => {
    const invoice = (await create(valid)).body;
    expect((await simulate(invoice.id, { result: 'failed' })).body.status).toBe('failed');
    expect((await get(invoice.id)).body.status).toBe('failed');
    expect((await simulate(invoice.id, { result: 'paid' })).body.status).toBe('paid');

    const other = (await create(valid)).body;
    expect((await simulate(other.id, { result: 'expired' })).body.status).toBe('expired');
    const late = await simulate(other.id, { result: 'paid' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_state');
  });

  it('simulate: test keys only, valid results only', async () => {
    const live = (await create(valid, merchant.live_key)).body;
    const res = await simulate(live.id, { result: 'paid' }, merchant.live_key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('live_mode_not_allowed');
    for (const body of [{}, { result: 'refunded' }]) {
      const refused = await simulate(live.id, body, merchant.live_key);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'live_mode_not_allowed']);
    }
    const test = (await create(valid)).body;
    const bad = await simulate(test.id, { result: 'refunded' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('result');
  });

  it('404 for unknown ids, another merchant\'s invoice and the other environment', async () => {
    const mine = (await create(valid)).body;
    const other = await stack.createMerchant({ testLimit: 10000 });
    for (const [key, id] of [
      [merchant.test_key, 'inv_test_nothinghere000000000000'],
      [other.test_key, mine.id],
      [merchant.live_key!, mine.id],
    ] as const) {
      const res = await get(id, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('live invoices need a verified merchant', async () => {
    const unverified = await stack.createMerchant();
    const key = await stack.admin('key', 'create', '--merchant', unverified.merchant_id, '--env', 'live').catch((e: Error) => e);
    expect(key).toBeInstanceOf(Error); // a live key cannot even be issued before verification
    await stack.admin('merchant', 'verify', '--id', unverified.merchant_id);
    const issued = await stack.admin('key', 'create', '--merchant', unverified.merchant_id, '--env', 'live');
    const ok = await create(valid, issued.key);
    expect(ok.status).toBe(201);
  });
});
