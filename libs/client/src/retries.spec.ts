import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ConnectionError, IdempotencyError, InvalidRequestError, RateLimitError, ServiceUnavailableError } from './errors';
import { Payments } from './client';

// The retry rules against a local HTTP stand-in that answers what each test scripts (429/503 with Retry-After, a
// 409 in progress, a dropped connection, a slow answer): which answers are retried, with the same key, and that a
// Retry-After is waited out. The service's own answers are exercised in test/client.int-spec.ts.
type Script = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  at: number;
}

describe('client retries', () => {
  let server: Server;
  let script: Script;
  let seen: Seen[];
  let baseUrl: string;
  const slow: NodeJS.Timeout[] = [];
  const later = (ms: number, fn: () => void) => void slow.push(setTimeout(fn, ms));

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined, at: Date.now() });
        script(req, res, seen.length);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const timer of slow) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    seen = [];
  });

  const client = (options: { maxRetries?: number; timeoutMs?: number; maxRetryDelayMs?: number } = {}) =>
    new Payments({ apiKey: 'pay_test_k.secret', baseUrl, retryBaseDelayMs: 10, ...options });
  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${seen.length}`, ...headers });
    res.end(JSON.stringify(body));
  };
  const intent = { id: 'pi_test_1', object: 'payment_intent', amount: '12.00' };
  const error = (code: string) => ({ error: { code, message: code } });
  const create = (c = client()) => c.paymentIntents.create({ amount: '12.00', currency: 'USD' });

  it.each([
    [429, 'rate_limited'],
    [503, 'service_unavailable'],
  ])('retries a %i with the same Idempotency-Key after the Retry-After it names', async (status, code) => {
    script = (_req, res, attempt) => (attempt === 1 ? answer(res, status, error(code), { 'retry-after': '1' }) : answer(res, 201, intent));
    const created = await create();
    expect(created.id).toBe('pi_test_1');
    expect(created.lastResponse).toMatchObject({ status: 201, attempts: 2, requestId: 'req_2' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('retries 409 idempotency_request_in_progress, keeping the caller\'s key', async () => {
    script = (_req, res, attempt) => (attempt < 3 ? answer(res, 409, error('idempotency_request_in_progress'), { 'retry-after': '0' }) : answer(res, 201, intent));
    const created = await client().paymentIntents.create({ amount: '12.00', currency: 'USD' }, { idempotencyKey: 'order-1001' });
    expect(created.lastResponse.attempts).toBe(3);
    expect(seen.map((s) => s.idempotencyKey)).toEqual(['order-1001', 'order-1001', 'order-1001']);
  });

  it('gives up after maxRetries with the typed error and its rate-limit headers', async () => {
    script = (_req, res) => answer(res, 429, error('rate_limited'), { 'retry-after': '0', 'ratelimit-limit': '25', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
    const failure = await create(client({ maxRetries: 2 })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect(failure).toMatchObject({ status: 429, code: 'rate_limited', limit: 25, remaining: 0, reset: 1, retryAfter: 0, requestId: 'req_3' });
    expect(seen).toHaveLength(3);
  });

  it('does not retry a Retry-After longer than maxRetryDelayMs (never sooner than asked)', async () => {
    script = (_req, res) => answer(res, 503, error('service_unavailable'), { 'retry-after': '120' });
    await expect(create(client({ maxRetryDelayMs: 5000 }))).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it.each([
    [400, 'invalid_request', InvalidRequestError],
    [409, 'idempotency_key_reused', IdempotencyError],
    [500, 'internal_error', ApiError],
  ])('never retries a %i %s', async (status, code, type) => {
    script = (_req, res) => answer(res, status, { error: { code, message: 'no', param: 'amount' } });
    const failure = await create().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(type);
    expect(failure).toMatchObject({ status, code, requestId: 'req_1', idempotencyKey: seen[0]!.idempotencyKey });
    expect(seen).toHaveLength(1);
  });

  it('retries a lost connection with the same key', async () => {
    script = (req, res, attempt) => (attempt === 1 ? req.socket.destroy() : answer(res, 201, intent));
    const created = await create();
    expect(created.lastResponse.attempts).toBe(2);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  });

  it('retries a timed-out attempt, and says so when none answer', async () => {
    script = (_req, res, attempt) => (attempt === 1 ? later(1500, () => answer(res, 201, intent)) : answer(res, 201, intent));
    expect((await create(client({ timeoutMs: 300 }))).lastResponse.attempts).toBe(2);
    seen = [];
    script = (_req, res) => later(1500, () => answer(res, 201, intent));
    const failure = await create(client({ timeoutMs: 200, maxRetries: 1 })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'timeout', status: undefined });
    expect(seen).toHaveLength(2);
  });

  it('sends no Idempotency-Key on a GET, and a fresh one per POST call', async () => {
    script = (_req, res) => answer(res, 200, intent);
    await client().paymentIntents.retrieve('pi_test_1');
    await create();
    await create();
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/payment-intents/pi_test_1', idempotencyKey: undefined });
    expect(seen[1]!.idempotencyKey).not.toBe(seen[2]!.idempotencyKey);
  });
});
