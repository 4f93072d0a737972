import { Body, Controller, Get, Post } from '@nestjs/common';
import { createTestDatabase, freePort, monitorRedis, TestDatabase } from '@payments/testing';
import { IsString } from 'class-validator';
import { AuthContext } from '../src/auth/auth-context';
import { Auth } from '../src/auth/auth.decorator';
import { IdempotencyKey, Idempotent } from '../src/idempotency/idempotent.decorator';
import { apiValidationPipe } from '../src/validation/api-validation.pipe';
import { bearer, jsonOf, sleep, startTestApi, TestApi } from './auth.harness';

class NoteDto {
  @IsString()
  text!: string;
}

@Controller('api/v1/limited')
class LimitedController {
  @Get()
  get(@Auth() auth: AuthContext): { merchant: string } {
    return { merchant: auth.merchantId };
  }

  @Post()
  @Idempotent()
  create(@IdempotencyKey() key: string, @Body(apiValidationPipe({ forbidUnknown: true })) body: NoteDto): { key: string; text: string } {
    return { key, text: body.text };
  }
}

describe('rate limits', () => {
  let db: TestDatabase;
  let api: TestApi;
  const get = (token: string) => fetch(`${api.url}/api/v1/limited`, { headers: bearer(token) });

  beforeAll(async () => {
    db = await createTestDatabase('gw_rate');
    api = await startTestApi(db, [LimitedController], { RATE_LIMIT_TEST_PER_SEC: '7', RATE_LIMIT_LIVE_PER_SEC: '11' });
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('sends RateLimit headers with the operator default on success', async () => {
    const { testKey, liveKey } = await api.accounts.createMerchant({ name: 'Headers', email: 'headers@example.com', verified: true });
    const test = await get(testKey.token);
    expect(test.status).toBe(200);
    expect(test.headers.get('ratelimit-limit')).toBe('7');
    expect(Number(test.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(test.headers.get('ratelimit-remaining'))).toBeLessThan(7);
    expect(Number(test.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    const live = await get(liveKey!.token);
    expect(live.headers.get('ratelimit-limit')).toBe('11');
  });

  it('answers 429 rate_limited with Retry-After once a key exceeds its merchant limit', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Busy', email: 'busy@example.com' });
    await api.accounts.setRateLimits(merchant.id, { test: 2 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(testKey.token)));
    const limited = answers.filter((res) => res.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((res) => res.status === 200).length).toBeGreaterThan(0);
    const res = limited[0]!;
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('ratelimit-limit')).toBe('2');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).not.toBeNull();
    expect(await jsonOf(res)).toEqual({ error: { code: 'rate_limited', message: expect.any(String), request_id: expect.any(String) } });

    // Each key has its own bucket: another key of the same merchant is not affected.
    const other = await api.accounts.createKey(merchant.id, 'test');
    expect((await get(other.token)).status).toBe(200);
    // The bucket refills: after a second the key is served again.
    await sleep(1100);
    expect((await get(testKey.token)).status).toBe(200);
  });

  it('sends the headers on errors after authentication too, and on 401 the caller\'s key-lookup limit', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Errors', email: 'errors@example.com' });
    const invalid = await fetch(`${api.url}/api/v1/limited`, {
      method: 'POST',
      headers: { ...bearer(testKey.token), 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body: JSON.stringify({ text: 5 }),
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit-limit')).toBe('7');

    await api.accounts.verifyMerchant(merchant.id);
    const live = await api.accounts.createKey(merchant.id, 'live');
    await api.dataSource.query(`UPDATE gateway.merchants SET verification_status = 'rejected', rejection_reason = 'documents unreadable' WHERE id = $1`, [merchant.id]);
    await sleep(1000);
    const forbidden = await get(live.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('ratelimit-limit')).toBe('11');

    const unauthenticated = await get('pay_test_nope');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('ratelimit-limit')).toBe('40');
  });

  const post = (token: string, key: string, body = JSON.stringify({ text: 'hello' })) =>
    fetch(`${api.url}/api/v1/limited`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': key }, body });

  it('takes an idempotent request\'s tokens in its key claim\'s round trip: two calls to Redis a request, not three', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Round trips', email: 'trips@example.com' });
    const keyId = testKey.token.split('.')[0]!.replace(/^pay_test_/, '');
    const calls: string[] = [];
    const monitor = await monitorRedis(api.config.REDIS_URL, ({ args, source }) => {
      const ours = args.some((arg) => arg.startsWith(api.config.KAFKA_NAMESPACE) && (arg.includes(merchant.id) || arg.includes(keyId)));
      if (source !== 'lua' && ours) calls.push(args[0]!.toLowerCase());
    });
    try {
      for (const key of ['t1', 't2', 't3']) {
        const res = await post(testKey.token, key);
        expect(res.status).toBe(201);
        expect(res.headers.get('ratelimit-limit')).toBe('7');
      }
      // The stored answer is written before the response goes out; the monitor's lines may trail a little.
      await sleep(200);
      // Per request: the tokens with the claim, then the stored answer.
      expect(calls).toHaveLength(6);
      expect(calls.every((command) => command === 'evalsha' || command === 'eval')).toBe(true);
    } finally {
      monitor.stop();
    }
  });

  it('refuses an idempotent request over its limit without claiming its key: the same key runs once the bucket refills', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Claims', email: 'claims@example.com' });
    await api.accounts.setRateLimits(merchant.id, { test: 2 });
    const keys = Array.from({ length: 6 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(keys.map((key) => post(testKey.token, key)));
    const refused = keys.filter((_, i) => answers[i]!.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((res) => res.status === 201).length).toBeGreaterThan(0);
    const limited = answers.find((res) => res.status === 429)!;
    expect(limited.headers.get('ratelimit-limit')).toBe('2');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await jsonOf(limited)).toEqual({ error: { code: 'rate_limited', message: expect.any(String), request_id: expect.any(String) } });
    await sleep(1100);
    const retried = await post(testKey.token, refused[0]!);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('counts a request answered before its key is claimed (a body that is not JSON), with the headers, and refuses it over the limit', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Unreadable', email: 'unreadable@example.com' });
    await api.accounts.setRateLimits(merchant.id, { test: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(testKey.token, `bad-${i}`, '{"text": ')));
    expect(answers.every((res) => res.headers.get('ratelimit-limit') === '2')).toBe(true);
    const unreadable = answers.filter((res) => res.status === 400);
    const limited = answers.filter((res) => res.status === 429);
    expect(unreadable.length).toBeGreaterThan(0);
    expect(limited.length).toBeGreaterThan(0);
    expect(unreadable.length + limited.length).toBe(6);
    expect(await jsonOf(unreadable[0]!)).toEqual({ error: expect.objectContaining({ code: 'invalid_request' }) });
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0]!.headers.get('content-type')).toContain('application/json');
    expect(await jsonOf(limited[0]!)).toEqual({ error: { code: 'rate_limited', message: expect.any(String), request_id: expect.any(String) } });
  });

  describe('without Redis', () => {
    let noRedis: TestApi;

    beforeAll(async () => {
      noRedis = await startTestApi(db, [LimitedController], { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    });

    afterAll(async () => {
      await noRedis?.close();
    });

    it('fails open: requests are served, without RateLimit headers and without idempotency replays', async () => {
      const { testKey } = await noRedis.accounts.createMerchant({ name: 'No Redis', email: 'noredis@example.com' });
      const res = await fetch(`${noRedis.url}/api/v1/limited`, { headers: bearer(testKey.token) });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();

      const post = () =>
        fetch(`${noRedis.url}/api/v1/limited`, {
          method: 'POST',
          headers: { ...bearer(testKey.token), 'content-type': 'application/json', 'idempotency-key': 'same' },
          body: JSON.stringify({ text: 'hello' }),
        });
      for (const answer of [await post(), await post()]) {
        expect(answer.status).toBe(201);
        expect(answer.headers.get('idempotent-replayed')).toBeNull();
        expect(await jsonOf(answer)).toEqual({ key: 'same', text: 'hello' });
      }
    });
  });
});
