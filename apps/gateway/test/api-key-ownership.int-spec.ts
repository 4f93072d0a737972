import { createTestDatabase, type TestDatabase } from '@payments/testing';
import { MerchantAccountError } from '../src/merchants/merchant-account.error';
import { startTestApi, type TestApi } from './auth.harness';

// The dashboard's key operations name the signed-in merchant and the URL's environment: any other key is not found
// and stays as it was.
describe('API keys of an owner', () => {
  let db: TestDatabase;
  let api: TestApi;

  beforeAll(async () => {
    db = await createTestDatabase('gw_key_owner');
    api = await startTestApi(db, []);
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  const notFound = (work: Promise<unknown>) => expect(work).rejects.toMatchObject({ name: 'MerchantAccountError', reason: 'not_found' });

  it("refuses another merchant's or the other environment's key, and changes nothing", async () => {
    const mine = await api.accounts.createMerchant({ name: 'Mine', email: 'mine@example.com', verified: true });
    const theirs = await api.accounts.createMerchant({ name: 'Theirs', email: 'theirs@example.com' });
    const owner = { merchantId: mine.merchant.id, environment: 'test' as const };

    expect((await api.accounts.getOwnKey(owner, mine.testKey.key.keyId)).keyId).toBe(mine.testKey.key.keyId);
    await notFound(api.accounts.getOwnKey(owner, theirs.testKey.key.keyId));
    await notFound(api.accounts.revokeKey(theirs.testKey.key.keyId, owner));
    await notFound(api.accounts.rollKey(theirs.testKey.key.keyId, 'now', owner));
    await notFound(api.accounts.revokeKey(mine.liveKey!.key.keyId, owner)); // the other environment
    await notFound(api.accounts.rollKey(mine.liveKey!.key.keyId, '1h', owner));

    const untouched = await api.dataSource.query(`SELECT revoked_at, expires_at FROM gateway.api_keys WHERE key_id = ANY($1)`, [
      [theirs.testKey.key.keyId, mine.liveKey!.key.keyId],
    ]);
    expect(untouched).toEqual([
      { revoked_at: null, expires_at: null },
      { revoked_at: null, expires_at: null },
    ]);
    expect(await api.accounts.listKeys(theirs.merchant.id)).toHaveLength(1);
  });

  it('lists the keys of one environment, and rolls within the owner', async () => {
    const { merchant, testKey, liveKey } = await api.accounts.createMerchant({ name: 'Roller', email: 'roller@example.com', verified: true });
    const owner = { merchantId: merchant.id, environment: 'live' as const };
    expect((await api.accounts.listKeys(merchant.id, 'live')).map((k) => k.keyId)).toEqual([liveKey!.key.keyId]);
    const rolled = await api.accounts.rollKey(liveKey!.key.keyId, '7d', owner);
    expect(rolled.key).toMatchObject({ merchantId: merchant.id, environment: 'live', name: 'Default live key', expiresAt: null });
    expect(rolled.rolled.expiresAt!.getTime() - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect((await api.accounts.listKeys(merchant.id, 'live')).map((k) => k.keyId)).toEqual([liveKey!.key.keyId, rolled.key.keyId]);
    expect((await api.accounts.listKeys(merchant.id, 'test')).map((k) => k.keyId)).toEqual([testKey.key.keyId]);
    // A revoked key has nothing to roll.
    await api.accounts.revokeKey(testKey.key.keyId, { merchantId: merchant.id, environment: 'test' });
    await expect(api.accounts.rollKey(testKey.key.keyId, '1h')).rejects.toBeInstanceOf(MerchantAccountError);
  });
});
