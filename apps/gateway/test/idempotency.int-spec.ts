import { Body, Controller, Header, Post } from '@nestjs/common';
import { randomBase62 } from '@payments/ids';
import { ApiError } from '@payments/platform';
import { createTestDatabase, TestDatabase } from '@payments/testing';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { AuthContext } from '../src/auth/auth-context';
import { Auth } from '../src/auth/auth.decorator';
import { IdempotencyKey, Idempotent } from '../src/idempotency/idempotent.decorator';
import { apiValidationPipe } from '../src/validation/api-validation.pipe';
import { IsMoneyString } from '../src/validation/is-money-string.validator';
import { bearer, jsonOf, startTestApi, TestApi } from './auth.harness';

class CreateThingDto {
  @IsMoneyString()
  amount!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(5000)
  delay_ms?: number;

  /** Makes the handler fail the way a service might. */
  @IsOptional()
  @IsIn(['conflict', 'crash'])
  fail?: string;

  @IsOptional()
  @IsString()
  note?: string;
}

/** How often the handler really ran, per idempotency key. */
const runs = new Map<string, number>();

@Controller('api/v1/things')
class ThingsController {
  @Post()
  @Idempotent()
  @Header('Location', '/api/v1/things/latest')
  async create(
    @Auth() auth: AuthContext,
    @IdempotencyKey() key: string,
    @Body(apiValidationPipe({ forbidUnknown: false })) body: CreateThingDto,
  ): Promise<Record<string, unknown>> {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    if (body.delay_ms) await new Promise((resolve) => setTimeout(resolve, body.delay_ms));
    if (body.fail === 'conflict') throw new ApiError('payment_methods_unavailable', 'No such method here.');
    if (body.fail === 'crash') throw new Error('boom');
    return { id: `thing_${randomBase62()}`, amount: body.amount, merchant: auth.merchantId, environment: auth.environment, at: Date.now() };
  }
}

describe('idempotency', () => {
  let db: TestDatabase;
  let api: TestApi;
  let testToken: string;

  const post = (key: string | undefined, body: unknown, token = testToken, path = '/api/v1/things') =>
    fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });
  const newKey = () => `key-${randomBase62(12)}`;

  beforeAll(async () => {
    db = await createTestDatabase('gw_idem');
    // Duplicates wait at most 1.5 s for the first request (10 s by default), to keep the in-progress case short.
    api = await startTestApi(db, [ThingsController], { IDEMPOTENCY_WAIT_MS: '1500', RATE_LIMIT_TEST_PER_SEC: '1000' });
    testToken = (await api.accounts.createMerchant({ name: 'Idem', email: 'idem@example.com' })).testKey.token;
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('replays the first response byte for byte, with Idempotent-Replayed: true', async () => {
    const key = newKey();
    const first = await post(key, { amount: '10.00', note: 'x' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();

    // Same request with keys in another order and other whitespace is the same request.
    const again = await fetch(`${api.url}/api/v1/things`, {
      method: 'POST',
      headers: { ...bearer(testToken), 'content-type': 'application/json', 'idempotency-key': key },
      body: '{ "note": "x",\n  "amount": "10.00" }',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('location')).toBe('/api/v1/things/latest');
    // Per-exchange headers are this request's own.
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    expect(again.headers.get('ratelimit-limit')).toBe('1000');
    expect(runs.get(key)).toBe(1);
  });

  it('answers 409 idempotency_key_reused for the same key with another body or path', async () => {
    const key = newKey();
    expect((await post(key, { amount: '10.00' })).status).toBe(201);
    const other = await post(key, { amount: '11.00' });
    expect(other.status).toBe(409);
    expect((await jsonOf(other)).error).toMatchObject({ code: 'idempotency_key_reused', request_id: expect.any(String) });
    const otherPath = await post(key, { amount: '10.00' }, testToken, '/api/v1/things?x=1');
    expect(otherPath.status).toBe(201); // the query string is not part of the fingerprint
    expect(runs.get(key)).toBe(1);
  });

  it('runs the handler once for 20 concurrent duplicates and gives all of them the same body', async () => {
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(key, { amount: '25.50', delay_ms: 300 })));
    const bodies = await Promise.all(answers.map((res) => res.text()));
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies).size).toBe(1);
    expect(answers.filter((res) => res.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(runs.get(key)).toBe(1);
  });

  it('answers 409 idempotency_request_in_progress with Retry-After: 1 when the first outlasts the wait', async () => {
    const key = newKey();
    const first = post(key, { amount: '1.00', delay_ms: 3000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const duplicate = await post(key, { amount: '1.00', delay_ms: 3000 });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('retry-after')).toBe('1');
    expect((await jsonOf(duplicate)).error.code).toBe('idempotency_request_in_progress');
    expect((await first).status).toBe(201);
    expect((await post(key, { amount: '1.00', delay_ms: 3000 })).headers.get('idempotent-replayed')).toBe('true');
    expect(runs.get(key)).toBe(1);
  });

  it('keeps the key of a request that runs longer than the claim lease: a later duplicate waits and replays it', async () => {
    // The claim's lease is 2 s; its request renews it while it runs, so a duplicate at 2.5 s finds it still held.
    const key = newKey();
    const first = post(key, { amount: '2.00', delay_ms: 3200 });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const duplicate = await post(key, { amount: '2.00', delay_ms: 3200 });
    expect((await first).status).toBe(201);
    expect(duplicate.status).toBe(201);
    expect(duplicate.headers.get('idempotent-replayed')).toBe('true');
    expect(runs.get(key)).toBe(1);
  });

  it('requires the header and limits it to 190 characters', async () => {
    const missing = await post(undefined, { amount: '10.00' });
    expect(missing.status).toBe(400);
    expect((await jsonOf(missing)).error.code).toBe('idempotency_key_required');
    expect((await post('', { amount: '10.00' })).status).toBe(400);

    expect((await post('k'.repeat(190), { amount: '10.00' })).status).toBe(201);
    const tooLong = await post('k'.repeat(191), { amount: '10.00' });
    expect(tooLong.status).toBe(400);
    expect((await jsonOf(tooLong)).error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it('does not keep a 400, so the key works once the body is fixed', async () => {
    const key = newKey();
    const invalid = await post(key, { amount: '0.10' });
    expect(invalid.status).toBe(400);
    expect((await jsonOf(invalid)).error).toMatchObject({ code: 'invalid_request', param: 'amount' });
    const fixed = await post(key, { amount: '0.50' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not keep a 5xx, but keeps and replays other errors', async () => {
    const crashKey = newKey();
    expect((await post(crashKey, { amount: '5.00', fail: 'crash' })).status).toBe(500);
    expect((await post(crashKey, { amount: '5.00', fail: 'crash' })).status).toBe(500);
    expect(runs.get(crashKey)).toBe(2);

    const conflictKey = newKey();
    const first = await post(conflictKey, { amount: '5.00', fail: 'conflict' });
    expect(first.status).toBe(409);
    const firstBody = await first.text();
    const replay = await post(conflictKey, { amount: '5.00', fail: 'conflict' });
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);
    expect(runs.get(conflictKey)).toBe(1);
  });

  it('scopes keys per merchant and environment', async () => {
    const other = await api.accounts.createMerchant({ name: 'Other', email: 'other@example.com', verified: true });
    const key = newKey();
    const mine = await jsonOf(await post(key, { amount: '7.00' }));
    const theirsTest = await post(key, { amount: '7.00' }, other.testKey.token);
    const theirsLive = await post(key, { amount: '7.00' }, other.liveKey!.token);
    for (const res of [theirsTest, theirsLive]) {
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    const [test, live] = [await jsonOf(theirsTest), await jsonOf(theirsLive)];
    expect(new Set([mine.id, test.id, live.id]).size).toBe(3);
    expect([test.environment, live.environment]).toEqual(['test', 'live']);
    expect(runs.get(key)).toBe(3);
  });
});
