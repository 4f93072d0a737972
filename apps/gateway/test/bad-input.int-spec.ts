import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Stack, startStack, TestMerchant } from '@payments/testing';

// No input, however malformed, produces a 5xx: generated bad bodies and headers get 400/401 in the Error shape.
describe('bad input never produces a 5xx', () => {
  let stack: Stack;
  let merchant: TestMerchant;

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway']);
    merchant = await stack.createMerchant({ verified: true, testLimit: 100000, liveLimit: 100000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const MONEY = /^\d+(?:\.\d{1,2})?$/;
  const isValidCreate = (body: unknown): boolean => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const b = body as Record<string, unknown>;
    return typeof b.amount === 'string' && MONEY.test(b.amount) && b.currency === 'USD';
  };

  function expectErrorShape(res: { status: number; body: any }, statuses: number[]): void {
    if (!statuses.includes(res.status)) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
    expect(res.body).toEqual({
      error: expect.objectContaining({ code: expect.any(String), message: expect.any(String), request_id: expect.any(String) }),
    });
  }

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    stack.call('POST', path, {
      key: merchant.test_key,
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers },
    });

  it('any JSON that is not a valid create body is 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue().filter((v) => !isValidCreate(v)), async (body) => {
        expectErrorShape(await post('/api/v1/payment-intents', JSON.stringify(body)), [400]);
      }),
      { numRuns: 300 },
    );
  });

  it('a valid body with one field replaced by a wrong value is 400', async () => {
    const base = { amount: '10.00', currency: 'USD' };
    const field = fc.constantFrom('amount', 'currency', 'external_ref', 'description', 'success_url', 'cancel_url', 'methods', 'customer', 'metadata', 'expires_in');
    const wrong = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 300 }), fc.array(fc.anything(), { maxLength: 5 }), fc.object({ maxDepth: 2 }));
    await fc.assert(
      fc.asyncProperty(field, wrong, async (name, value) => {
        const body = { ...base, [name]: value };
        const res = await post('/api/v1/payment-intents', JSON.stringify(body));
        if (res.status === 201) return; // the generated value happened to be valid for that field
        expectErrorShape(res, [400]);
      }),
      { numRuns: 300 },
    );
  });

  it('raw text bodies and odd content types are 400 (forms 415)', async () => {
    const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8');
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 500 }), contentType, async (text, type) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined; // not JSON at all: must be 400 too
        }
        if (type.startsWith('application/json') && isValidCreate(parsed)) return;
        expectErrorShape(await post('/api/v1/invoices', text, { 'content-type': type }), [type === 'application/x-www-form-urlencoded' ? 415 : 400]);
      }),
      { numRuns: 200 },
    );
  });

  it('bad Authorization and Idempotency-Key headers are 401/400', async () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 });
    await fc.assert(
      fc.asyncProperty(printable, fc.constantFrom('GET', 'POST'), async (token, method) => {
        const res = await stack.call(method, method === 'GET' ? '/api/v1/payment-intents/pi_test_abc' : '/api/v1/payment-intents', {
          headers: { authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
          body: method === 'POST' ? { amount: '5', currency: 'USD' } : undefined,
        });
        expectErrorShape(res, [401]);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 191, maxLength: 400 }), async (key) => {
        expectErrorShape(await post('/api/v1/payment-intents', JSON.stringify({ amount: '5', currency: 'USD' }), { 'idempotency-key': key }), [400]);
      }),
      { numRuns: 100 },
    );
  });

  it('answers outside the contract, closed: an over-long path id is a 404 in the Error shape, not Fastify\'s 414', async () => {
    for (const length of [101, 500, 4000]) {
      for (const path of [`/api/v1/payment-intents/pi_test_${'a'.repeat(length)}`, `/api/v1/invoices/inv_test_${'a'.repeat(length)}`]) {
        const res = await stack.call('GET', path, { key: merchant.test_key });
        expectErrorShape(res, [404]);
        expect(res.body.error.code).toBe('not_found');
      }
    }
  });

  it('answers outside the contract, closed: a form body on the JSON API is 415 unsupported_media_type and creates nothing', async () => {
    const key = randomUUID();
    const res = await post('/api/v1/payment-intents', 'amount=10.00&currency=USD', { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key });
    expectErrorShape(res, [415]);
    expect(res.body.error.code).toBe('unsupported_media_type');
    const db = await stack.db.dataSource('sessions');
    expect(await db.query(`SELECT 1 FROM sessions.idempotency_keys WHERE key = $1`, [key])).toEqual([]);
  });
});
