import { startStack, type Stack, type TestMerchant } from '@payments/testing';
import type { DataSource } from 'typeorm';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A rolled key through the real gateway process: the old key works during the overlap, is refused like a revoked
// key once it ends (within the key cache's second), and its replacement keeps working.
describe('rolled API keys', () => {
  let stack: Stack;
  let db: DataSource;
  let merchant: TestMerchant;

  const list = (key: string) => stack.call('GET', '/api/v1/webhook-endpoints', { key });
  const keyIdOf = (token: string) => token.slice('pay_test_'.length).split('.')[0]!;

  beforeAll(async () => {
    stack = await startStack(['gateway'], { NODE_ENV: 'development' });
    db = await stack.db.dataSource('gateway');
    merchant = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps the old key during the overlap, refuses it once expired, and keeps the new one', async () => {
    const old = merchant.test_key;
    expect((await list(old)).status).toBe(200); // cached now

    const rolled = await stack.admin('key', 'roll', '--key', keyIdOf(old), '--overlap', '1h');
    expect(rolled).toMatchObject({ rolled_key_id: keyIdOf(old), environment: 'test', key: expect.stringMatching(/^pay_test_/), expires_at: null });
    const expiresIn = Date.parse(rolled.rolled_key_expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(3_500_000);
    expect(expiresIn).toBeLessThanOrEqual(3_600_000);
    const replacement = rolled.key as string;
    expect((await list(old)).status).toBe(200);
    expect((await list(replacement)).status).toBe(200);

    // The overlap ends (as if the hour had passed): refused within the cache's second, like a revoked key.
    await db.query(`UPDATE gateway.api_keys SET expires_at = now() WHERE key_id = $1`, [keyIdOf(old)]);
    await sleep(1000);
    const refused = await list(old);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringMatching(/expired/) });
    expect((await list(replacement)).status).toBe(200);
  });

  it('rolled with no overlap, the old key is refused within a second', async () => {
    const { test_key: old } = await stack.createMerchant({ testLimit: 10000 });
    expect((await list(old)).status).toBe(200);
    const rolled = await stack.admin('key', 'roll', '--key', keyIdOf(old), '--overlap', 'now');
    await sleep(1000);
    expect((await list(old)).status).toBe(401);
    expect((await list(rolled.key)).status).toBe(200);
    // An expired key cannot be rolled again (nothing uses it): the CLI refuses.
    await expect(stack.admin('key', 'roll', '--key', keyIdOf(old))).rejects.toThrow(/expired/);
  });
});
