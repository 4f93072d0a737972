import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, ConnectionError, IdempotencyError, InvalidRequestError, RateLimitError, ServiceUnavailableError } from './errors';
import { Payments } from './client';
import type { AttemptEvent, AttemptResultEvent, ClientHooks, ClientOptions } from './http';

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

  const client = (options: Partial<ClientOptions> = {}) =>
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
    expect(failure).toMatchObject({ status: 429, code: 'rate_limited', limit: 25, remaining: 0, reset: 1, retryAfter: 0, requestId: 'req_3', attempts: 3 });
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

  it('retries a success whose body is not JSON (a lost answer) with the same key, and says so when none is readable', async () => {
    const cutShort = (res: ServerResponse) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"id":"pi_test_1","obj');
    };
    script = (_req, res, attempt) => (attempt === 1 ? cutShort(res) : answer(res, 201, intent));
    const created = await create();
    expect(created).toMatchObject(intent);
    expect(created.lastResponse.attempts).toBe(2);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
    seen = [];
    script = (_req, res) => cutShort(res);
    const failure = await create(client({ maxRetries: 1 })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'invalid_response', status: undefined });
    expect(seen).toHaveLength(2);
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

  it.each([500, 502, 504])('retries a %i with the same key when retryStatuses names it', async (status) => {
    script = (_req, res, attempt) => (attempt === 1 ? answer(res, status, error('internal_error')) : answer(res, 201, intent));
    const created = await create(client({ retryStatuses: [429, 500, 502, 503, 504] }));
    expect(created.lastResponse.attempts).toBe(2);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  });

  it('retryStatuses replaces the default: a 503 not named is not retried', async () => {
    script = (_req, res) => answer(res, 503, error('service_unavailable'), { 'retry-after': '0' });
    await expect(create(client({ retryStatuses: [500] }))).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(seen).toHaveLength(1);
  });

  it.each([400, 404, 409, 422, 200, 600])('refuses %i in retryStatuses (a repeat answers the same)', async (status) => {
    expect(() => client({ retryStatuses: [503, status] })).toThrow(RangeError);
    await expect(client().paymentIntents.create({ amount: '1.00', currency: 'USD' }, { retryStatuses: [status] })).rejects.toThrow(RangeError);
    expect(seen).toHaveLength(0);
  });

  it('gives up at retryDeadlineMs however many retries are left, with the attempts it made', async () => {
    script = (_req, res) => answer(res, 503, error('service_unavailable'));
    // By the client's clock: when each attempt started, and when each planned retry's wait was to end.
    const started: number[] = [];
    const waitsEnd: number[] = [];
    const hooks: ClientHooks = {
      onRequest: () => void started.push(Date.now()),
      onResponse: (e) => void (e.retrying && waitsEnd.push(Date.now() + e.retryInMs!)),
    };
    const failure = await create(client({ maxRetries: Infinity, retryDeadlineMs: 300, retryBaseDelayMs: 20, maxBackoffMs: 40, hooks })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect(seen.length).toBeGreaterThan(1);
    expect((failure as ServiceUnavailableError).attempts).toBe(seen.length);
    expect(started).toHaveLength(seen.length);
    expect(waitsEnd).toHaveLength(seen.length - 1);
    // No retry is planned whose wait ends past the deadline (a timer may still fire a little late on a busy
    // machine, so the attempt's own start is not the measure). One millisecond: the clock may tick between the
    // client's check and the hook.
    for (const end of waitsEnd) expect(end - started[0]!).toBeLessThanOrEqual(300 + 1);
    // And it stopped because the next wait would have ended past it (a wait is at most maxBackoffMs, 40 ms).
    expect(Date.now() - started[0]!).toBeGreaterThanOrEqual(300 - 40 - 1);
  });

  it('maxBackoffMs caps the client\'s own backoff, a Retry-After is still waited out', async () => {
    script = (req, res, attempt) => (attempt === 1 ? req.socket.destroy() : attempt === 2 ? answer(res, 503, error('service_unavailable'), { 'retry-after': '1' }) : answer(res, 201, intent));
    // A 10 s backoff would not fit the deadline: the retry after the lost connection shows the cap applied.
    const created = await create(client({ retryBaseDelayMs: 10_000, maxBackoffMs: 20, retryDeadlineMs: 5000 }));
    expect(created.lastResponse.attempts).toBe(3);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('tells hooks of every attempt: its start, and its end with the failure and whether a retry follows', async () => {
    const events: Array<['request', AttemptEvent] | ['response', AttemptResultEvent]> = [];
    let inFlight = 0;
    let most = 0;
    const hooks = {
      onRequest: (e: AttemptEvent) => {
        events.push(['request', e]);
        most = Math.max(most, ++inFlight);
      },
      onResponse: (e: AttemptResultEvent) => {
        events.push(['response', e]);
        inFlight--;
      },
    };
    script = (req, res, attempt) => (attempt === 1 ? req.socket.destroy() : attempt === 2 ? answer(res, 503, error('service_unavailable'), { 'retry-after': '0' }) : answer(res, 201, intent));
    const created = await create(client({ hooks }));
    const key = created.lastResponse.idempotencyKey;
    const base = { method: 'POST', path: '/api/v1/payment-intents', idempotencyKey: key };
    expect(events.map(([kind, e]) => [kind, e.attempt])).toEqual([['request', 1], ['response', 1], ['request', 2], ['response', 2], ['request', 3], ['response', 3]]);
    expect(events[0]![1]).toEqual({ ...base, attempt: 1 });
    expect(events[1]![1]).toMatchObject({ ...base, status: undefined, retrying: true, error: expect.any(ConnectionError) });
    expect(events[3]![1]).toMatchObject({ ...base, status: 503, requestId: 'req_2', retrying: true, error: expect.any(ServiceUnavailableError) });
    expect(events[5]![1]).toMatchObject({ ...base, status: 201, requestId: 'req_3', retrying: false, error: undefined, retryInMs: undefined });
    expect([inFlight, most]).toEqual([0, 1]);

    // The last failure is the one the caller gets, with no retry after it; a GET's path carries its query.
    events.length = 0;
    seen = [];
    script = (_req, res) => answer(res, 404, error('not_found'));
    const failure = await client({ hooks })
      .payments.list({ limit: 5 })
      .then(() => undefined, (e: unknown) => e);
    expect(events).toHaveLength(2);
    expect(events[1]![1]).toMatchObject({ method: 'GET', path: '/api/v1/payments?limit=5', attempt: 1, status: 404, retrying: false, idempotencyKey: undefined });
    expect((events[1]![1] as AttemptResultEvent).error).toBe(failure);
  });

  it('ends an aborted attempt for hooks too, and a hook that throws does not fail the call', async () => {
    const ended: AttemptResultEvent[] = [];
    script = (_req, res) => later(1000, () => answer(res, 201, intent));
    const abort = new AbortController();
    const call = client({ hooks: { onResponse: (e) => void ended.push(e) } }).paymentIntents.create({ amount: '1.00', currency: 'USD' }, { signal: abort.signal });
    setTimeout(() => abort.abort(new Error('changed my mind')), 100);
    await expect(call).rejects.toThrow('changed my mind');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ status: undefined, retrying: false, error: expect.objectContaining({ code: 'aborted' }) });

    script = (_req, res) => answer(res, 201, intent);
    const throwing = () => {
      throw new Error('observer broke');
    };
    expect((await create(client({ hooks: { onRequest: throwing, onResponse: throwing } }))).id).toBe('pi_test_1');
  });
});
