import { Controller, Get } from '@nestjs/common';
import { createTestDatabase, TestDatabase, waitFor } from '@payments/testing';
import { AuthContext } from '../src/auth/auth-context';
import { Auth } from '../src/auth/auth.decorator';
import { bearer, jsonOf, sleep, startTestApi, TestApi } from './auth.harness';

@Controller('api/v1/whoami')
class WhoAmIController {
  @Get()
  whoami(@Auth() auth: AuthContext): AuthContext {
    return auth;
  }
}

@Controller('public')
class PublicController {
  @Get()
  hello(): { ok: true } {
    return { ok: true };
  }
}

// Every way a key can be wrong, against real Postgres and Redis.
describe('API key authentication', () => {
  let db: TestDatabase;
  let api: TestApi;

  const get = (headers: Record<string, string> = {}) => fetch(`${api.url}/api/v1/whoami`, { headers });

  async function expectInvalidKey(res: Response): Promise<void> {
    expect(res.status).toBe(401);
    // No key to show a bucket for: the headers show the caller's limit on uncached key lookups (20/s, 40 in a burst).
    expect(res.headers.get('ratelimit-limit')).toBe('40');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThanOrEqual(40);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    expect(await jsonOf(res)).toEqual({
      error: { code: 'invalid_api_key', message: expect.any(String), request_id: expect.any(String) },
    });
  }

  beforeAll(async () => {
    db = await createTestDatabase('gw_auth');
    api = await startTestApi(db, [WhoAmIController, PublicController]);
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('accepts a test key of an unverified merchant and tells the route who calls', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Unverified', email: 'unverified@example.com' });
    const res = await get(bearer(testKey.token));
    expect(res.status).toBe(200);
    expect(await jsonOf(res)).toEqual({
      merchantId: merchant.id,
      environment: 'test',
      keyId: testKey.key.keyId,
      merchant: {
        id: merchant.id,
        name: 'Unverified',
        verificationStatus: 'unverified',
        enabledMethods: ['togo', 'lahza', 'crypto'],
        rateLimits: { live: null, test: null },
        feeSchedule: { togo: 50, wallet: 50, crypto: 150, lahza: 150 },
      },
    });
  });

  it('answers 401 invalid_api_key for a missing, malformed or unknown key', async () => {
    const { testKey } = await api.accounts.createMerchant({ name: 'Shop', email: 'shop@example.com' });
    const secret = testKey.token.split('.')[1] as string;
    await expectInvalidKey(await get());
    await expectInvalidKey(await get({ authorization: '' }));
    await expectInvalidKey(await get({ authorization: testKey.token })); // no scheme
    await expectInvalidKey(await get({ authorization: `Basic ${Buffer.from(`${testKey.token}:`).toString('base64')}` }));
    await expectInvalidKey(await get(bearer('pay_test_nodot')));
    await expectInvalidKey(await get(bearer('sk_test_abcdefgh.0123456789012345678901234567890123456789')));
    await expectInvalidKey(await get(bearer(`pay_test_UnknownKeyId000000.${secret}`)));
  });

  it('answers 401 for the right key id with a wrong secret or the other environment', async () => {
    const { testKey } = await api.accounts.createMerchant({ name: 'Secretive', email: 'secret@example.com' });
    const [keyId, secret] = testKey.token.slice('pay_test_'.length).split('.') as [string, string];
    const wrongSecret = `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`;
    await expectInvalidKey(await get(bearer(`pay_test_${keyId}.${wrongSecret}`)));
    await expectInvalidKey(await get(bearer(`pay_live_${keyId}.${secret}`)));
    expect((await get(bearer(testKey.token))).status).toBe(200);
  });

  it('refuses a revoked key on the next request after the cache time (within 1 s)', async () => {
    const { testKey } = await api.accounts.createMerchant({ name: 'Revoker', email: 'revoker@example.com' });
    expect((await get(bearer(testKey.token))).status).toBe(200); // now cached
    await api.accounts.revokeKey(testKey.key.keyId);
    await sleep(1000);
    const res = await get(bearer(testKey.token));
    await expectInvalidKey(res.clone());
    expect((await jsonOf(res)).error.message).toMatch(/revoked/);
  });

  it('answers 403 account_not_verified for a live key until the merchant is verified', async () => {
    const { merchant, liveKey } = await api.accounts.createMerchant({ name: 'Live', email: 'live@example.com', verified: true });
    expect((await get(bearer(liveKey!.token))).status).toBe(200);
    // Verification withdrawn (e.g. back to pending review): live mode stops within the cache time.
    await api.dataSource.query(`UPDATE gateway.merchants SET verification_status = 'pending' WHERE id = $1`, [merchant.id]);
    await sleep(1000);
    const refused = await get(bearer(liveKey!.token));
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error).toMatchObject({ code: 'account_not_verified', request_id: expect.any(String) });

    await api.accounts.verifyMerchant(merchant.id);
    await sleep(1000);
    const res = await get(bearer(liveKey!.token));
    expect(res.status).toBe(200);
    expect(await jsonOf(res)).toMatchObject({ environment: 'live', merchant: { verificationStatus: 'verified' } });
  });

  it('records the last use of a key without delaying the request', async () => {
    const { testKey } = await api.accounts.createMerchant({ name: 'Used', email: 'used@example.com' });
    expect((await get(bearer(testKey.token))).status).toBe(200);
    await waitFor(
      async () => {
        const [row] = await api.dataSource.query(`SELECT last_used_at FROM gateway.api_keys WHERE key_id = $1`, [testKey.key.keyId]);
        return row.last_used_at !== null;
      },
      5000,
      'last_used_at',
    );
  });

  it('stores only a hash of the secret', async () => {
    const { testKey } = await api.accounts.createMerchant({ name: 'Hashed', email: 'hashed@example.com' });
    const secret = testKey.token.split('.')[1] as string;
    const [row] = await api.dataSource.query(`SELECT * FROM gateway.api_keys WHERE key_id = $1`, [testKey.key.keyId]);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('leaves routes outside /api/v1 alone', async () => {
    const res = await fetch(`${api.url}/public`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});
