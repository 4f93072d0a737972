import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { Stack, startStack, TestMerchant } from '@payments/testing';

// No input, however malformed, produces a 5xx: generated bad bodies, headers and path ids (over 10,000 requests,
// NUL, lone surrogates, deep nesting and over-long ids among them) get a 4xx in the Error shape.
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

  function expectErrorShape(res: { status: number; body: any; headers?: Headers }, statuses: number[]): void {
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
      { numRuns: 2600 },
    );
  });

  it('a null for an optional field is a 400 that names the field and the type it must be', async () => {
    const types: Record<string, string> = { external_ref: 'a string', description: 'a string', success_url: 'a string', cancel_url: 'a string', customer: 'an object', metadata: 'an object', methods: 'an array', expires_in: 'an integer' };
    for (const [name, type] of Object.entries(types)) {
      const res = await post('/api/v1/payment-intents', JSON.stringify({ amount: '10.00', currency: 'USD', [name]: null }));
      expect({ name, status: res.status, error: res.body.error }).toEqual({ name, status: 400, error: expect.objectContaining({ code: 'invalid_request', param: name, message: expect.stringMatching(new RegExp(`^${name} must be ${type}\\.?$`)) }) });
    }
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
      { numRuns: 2600 },
    );
  });

  it('raw text bodies and odd content types are 400 (forms too)', async () => {
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
        expectErrorShape(await post('/api/v1/invoices', text, { 'content-type': type }), [400]);
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

  it('answers a path that is not valid percent-encoding, or an id past the router\'s limit, in the Error shape with its Request-Id', async () => {
    for (const path of ['/api/v1/payment-intents/%zz', '/api/v1/invoices/inv_test_%E0%A4%A', '/api/v1/payment-intents/pi_test_%', '/api/v1/payments/%C0%AF/refunds']) {
      const res = await stack.call(path.endsWith('/refunds') ? 'POST' : 'GET', path, { key: merchant.test_key });
      expectErrorShape(res, [400]);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.headers.get('request-id')).toBe(res.body.error.request_id);
    }
    // Past the router's 8 KiB limit for one path segment (and within Node's 16 KiB for the request head).
    const long = await stack.call('GET', `/api/v1/payment-intents/pi_test_${'a'.repeat(10_000)}`, { key: merchant.test_key });
    expectErrorShape(long, [404]);
    expect(long.body.error.code).toBe('not_found');
    expect(long.headers.get('request-id')).toBe(long.body.error.request_id);
  });

  it('answers requests Node\'s HTTP parser refuses (headers too large, not HTTP, ambiguous framing) in the Error shape with a Request-Id', async () => {
    const { hostname, port } = new URL(stack.gatewayUrl);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        let answer = '';
        const socket = connect(Number(port), hostname, () => socket.end(request));
        socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
        socket.on('close', () => resolve(answer)).on('error', reject);
      });
    const auth = `Authorization: Bearer ${merchant.test_key}\r\n`;
    const cases: Array<[string, number]> = [
      [`GET /api/v1/balance HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['GARBAGE\r\n\r\n', 400],
      [`POST /api/v1/payment-intents HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400],
      [`POST /api/v1/payment-intents HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\n`, 400],
      [`GET /api/v1/balance HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`, 400],
    ];
    for (const [request, status] of cases) {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const parsed = JSON.parse(body!);
      expect(Object.keys(parsed)).toEqual(['error']);
      expect(parsed.error.code).toBe('invalid_request');
      expect(typeof parsed.error.message).toBe('string');
      expect(head).toMatch(new RegExp(`\r\nRequest-Id: ${parsed.error.request_id}(\r\n|$)`, 'i'));
    }
  });

  it('answers a body it never reads (not JSON, a form, over 64 KiB) and an unknown API path with the key\'s RateLimit headers', async () => {
    for (const [contentType, body] of [
      ['application/json', '{"amount": '],
      ['application/x-www-form-urlencoded', 'amount=10.00&currency=USD'],
      ['text/plain', 'amount'],
      ['application/json', JSON.stringify({ amount: '10.00', currency: 'USD', description: 'x'.repeat(70 * 1024) })],
    ] as const) {
      const res = await post('/api/v1/payment-intents', body, { 'content-type': contentType });
      expectErrorShape(res, [400]);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.headers.get('ratelimit-limit')).toBe('100000');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
    }
    const unknown = await stack.call('GET', '/api/v1/no-such-resource', { key: merchant.test_key });
    expectErrorShape(unknown, [404]);
    expect(unknown.headers.get('ratelimit-limit')).toBe('100000');
    // No key: a 401 before any body problem, showing the caller's limit on uncached key lookups instead.
    const anonymous = await stack.call('POST', '/api/v1/payment-intents', { body: '{"amount": ', headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() } });
    expectErrorShape(anonymous, [401]);
    expect(anonymous.headers.get('ratelimit-limit')).toBe('40');
  });

  it('routes that take no body refuse any field sent to them (400 naming it), and take none or {}', async () => {
    const intent = await stack.call('POST', '/api/v1/payment-intents', {
      key: merchant.test_key,
      body: { amount: '10.00', currency: 'USD' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(intent.status).toBe(201);
    const cancel = (body?: unknown) => stack.call('POST', `/api/v1/payment-intents/${intent.body.id}/cancel`, { key: merchant.test_key, body });
    const refused = await cancel({ reason: 'changed my mind' });
    expectErrorShape(refused, [400]);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'reason' });
    expect((await stack.call('GET', `/api/v1/payment-intents/${intent.body.id}`, { key: merchant.test_key })).body.status).toBe('requires_payment_method');
    expect((await cancel({})).status).toBe(200);
    const id = `we_${'a'.repeat(24)}`;
    for (const path of [`/api/v1/webhook-endpoints/${id}/enable`, `/api/v1/webhook-endpoints/${id}/test`, `/api/v1/webhook-endpoints/${id}/deliveries/wd_${'a'.repeat(24)}/resend`]) {
      const withField = await stack.call('POST', path, { key: merchant.test_key, body: { force: true } });
      expectErrorShape(withField, [400]);
      expect(withField.body.error.param).toBe('force');
      // Without a body the route is reached: this endpoint is not the merchant's.
      expectErrorShape(await stack.call('POST', path, { key: merchant.test_key }), [404]);
    }
    const bare = await stack.call('POST', '/api/v1/payment-intents', { key: merchant.test_key, body: { amount: '10.00', currency: 'USD' }, headers: { 'idempotency-key': randomUUID() } });
    expect((await stack.call('POST', `/api/v1/payment-intents/${bare.body.id}/cancel`, { key: merchant.test_key })).status).toBe(200);
  });

  it('no content with Content-Type: application/json is no body: an optional body is left out, a required one is asked for; JSON null is not an object', async () => {
    const intent = await post('/api/v1/payment-intents', '{"amount":"10.00","currency":"USD"}');
    expect(intent.status).toBe(201);
    expectErrorShape(await post(`/api/v1/payment-intents/${intent.body.id}/cancel`, 'null'), [400]);
    expect((await post(`/api/v1/payment-intents/${intent.body.id}/cancel`, '')).status).toBe(200);
    for (const text of ['', '  \n']) {
      const create = await post('/api/v1/payment-intents', text);
      expectErrorShape(create, [400]);
      expect(create.body.error.message).toBe('The request body must be a JSON object.');
    }
    // A refund's body is optional (refund all): JSON null is refused rather than taken as "refund all".
    expectErrorShape(await post('/api/v1/payments/pi_test_none/refunds', 'null'), [400]);
    // Left out, the request goes on to find the payment (there is none), not a 400.
    expectErrorShape(await post('/api/v1/payments/pi_test_none/refunds', ''), [404]);
  });

  it('a form body on the JSON API is 400 invalid_request (a wrong content type, DESIGN §5) and creates nothing', async () => {
    const key = randomUUID();
    const res = await post('/api/v1/payment-intents', 'amount=10.00&currency=USD', { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key });
    expectErrorShape(res, [400]);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/application\/json/) });
    const db = await stack.db.dataSource('sessions');
    expect(await db.query(`SELECT 1 FROM sessions.idempotency_keys WHERE key = $1`, [key])).toEqual([]);
  });

  // Postgres text and jsonb refuse NUL and lone surrogates; they answered 500 wherever they reached a write.
  const unstorable = fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'), fc.string({ maxLength: 20 })).map(
    ([before, bad, after]) => `${before}${bad}${after}`.replace(/[\uD800-\uDBFF]$/, '$&x'),
  );

  it('unstorable strings (NUL, lone surrogates) in any string field, metadata key or value are 400 naming the field', async () => {
    const placements: Array<[string, (text: string) => object]> = [
      ['external_ref', (t) => ({ external_ref: t })],
      ['description', (t) => ({ description: t })],
      ['success_url', (t) => ({ success_url: `https://example.com/${t}` })],
      ['customer.name', (t) => ({ customer: { name: t } })],
      ['customer.email', (t) => ({ customer: { email: `${t}@example.com` } })],
      ['customer.phone', (t) => ({ customer: { phone: t } })],
      ['customer.city', (t) => ({ customer: { city: t } })],
      ['metadata', (t) => ({ metadata: { note: t } })],
      ['metadata', (t) => ({ metadata: { [t]: 'v' } })],
      ['methods', (t) => ({ methods: [t] })],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...placements), unstorable, fc.constantFrom('/api/v1/payment-intents', '/api/v1/invoices'), async ([param, place], text, path) => {
        const res = await post(path, JSON.stringify({ amount: '10.00', currency: 'USD', ...place(text) }));
        expectErrorShape(res, [400]);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
      }),
      { numRuns: 3600 },
    );
    const endpoint = await stack.call('POST', '/api/v1/webhook-endpoints', { key: merchant.test_key, body: { url: 'https://example.com/hooks\u0000' } });
    expectErrorShape(endpoint, [400]);
    expect(endpoint.body.error.param).toBe('url');
  });

  it('deeply nested bodies are 400, never a 500 from a recursive walk', async () => {
    const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
    for (const levels of [33, 1000, 10000]) {
      const res = await post('/api/v1/payment-intents', `{"amount":"10.00","currency":"USD","metadata":{"a":${nested(levels)}}}`);
      expectErrorShape(res, [400]);
      expect(res.body.error.param).toBe('metadata');
    }
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 33, max: 3000 }), fc.constantFrom('metadata', 'customer', 'extra'), async (levels, field) => {
        const body = `{"amount":"10.00","currency":"USD","${field}":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
        expectErrorShape(await post('/api/v1/payment-intents', body), [400]);
      }),
      { numRuns: 500 },
    );
  });

  it('a number past double\'s range anywhere in a body is 400 naming its field, never a 500', async () => {
    for (const path of ['/api/v1/payment-intents', '/api/v1/invoices', '/api/v1/payments/pi_test_none/refunds']) {
      for (const [text, param] of [
        ['{"amount":"10.00","currency":"USD","expires_in":1e400}', 'expires_in'],
        ['{"amount":"10.00","currency":"USD","foo":-1e400}', 'foo'],
        ['{"amount":"10.00","currency":"USD","metadata":{"a":1e400}}', 'metadata'],
      ]) {
        const res = await post(path, text!);
        expectErrorShape(res, [400]);
        expect(res.body.error.param).toBe(param);
      }
    }
  });

  it('metadata keys named like inherited members are kept; such names as fields are unknown fields', async () => {
    const metadata = '{"constructor":"a","toString":"b","valueOf":"c","hasOwnProperty":"d","nested":{"constructor":"f"}}';
    for (const path of ['/api/v1/payment-intents', '/api/v1/invoices']) {
      const created = await post(path, `{"amount":"10.00","currency":"USD","metadata":${metadata}}`);
      expect(created.status).toBe(201);
      expect(JSON.stringify(created.body.metadata)).toBe(metadata);
      const read = await stack.call('GET', `${path}/${created.body.id}`, { key: merchant.test_key });
      expect(JSON.stringify(read.body.metadata)).toBe(metadata);
    }
    for (const key of ['constructor', 'toString', 'valueOf']) {
      const nested = await post('/api/v1/payment-intents', `{"amount":"10.00","currency":"USD","customer":{"${key}":"x"}}`);
      expectErrorShape(nested, [400]);
      expect(nested.body.error.param).toBe(`customer.${key}`);
      const top = await post('/api/v1/invoices', `{"amount":"10.00","currency":"USD","${key}":"x"}`);
      expectErrorShape(top, [400]);
      expect(top.body.error.param).toBe(key);
    }
  });

  it('over-long and odd path ids are a 404 in the Error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 60, max: 6000 }), fc.constantFrom('payment-intents', 'invoices'), async (length, kind) => {
        const prefix = kind === 'invoices' ? 'inv_test_' : 'pi_test_';
        const res = await stack.call('GET', `/api/v1/${kind}/${prefix}${'z'.repeat(length)}`, { key: merchant.test_key });
        expectErrorShape(res, [404]);
      }),
      { numRuns: 500 },
    );
  });

  it('a flood of made-up API keys from one client stops at its lookup limit (429), before the database; a known key goes on', async () => {
    const made = () => `pay_test_${randomUUID().replace(/-/g, '').slice(0, 24)}.${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;
    // The merchant's key (looked up by earlier tests) is out of the cache by the first refusal: it needs a lookup.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answers: number[] = [];
    const knownAnswers: number[] = [];
    for (let i = 0; i < 120; i++) {
      // A client naming itself in X-Forwarded-For is not believed (no proxy is trusted by default): one client.
      const res = await stack.call('GET', '/api/v1/payment-intents/pi_test_abc', { headers: { authorization: `Bearer ${made()}`, 'x-forwarded-for': `198.51.100.${i}` } });
      expectErrorShape(res, [401, 429]);
      if (res.status === 429) {
        expect(res.body.error.code).toBe('rate_limited');
        expect(res.headers.get('retry-after')).toBe('1');
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
        // Right after a refusal, from the same address: a key found before is not held up (it was a 429).
        const known = await stack.call('GET', '/api/v1/payment-intents/pi_test_abc', { key: merchant.test_key });
        knownAnswers.push(known.status);
      }
      expect(res.headers.get('ratelimit-limit')).toBe('40');
      answers.push(res.status);
    }
    expect(answers.filter((s) => s === 429).length).toBeGreaterThan(10);
    expect(new Set(knownAnswers)).toEqual(new Set([404]));
  });
});
