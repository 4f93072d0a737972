import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';
import { ApiKeyDirectory, KEY_MAX_AGE_MS, type LookupBudget } from './api-key.directory';
import { LookupLimiter } from './lookup-limiter';

// Unknown API key ids cost a database query each before any limit applied: a flood of made-up ids was a flood
// of queries. The directory now asks the client's lookup limit before every query, and only then.
describe('ApiKeyDirectory with a lookup limit per client', () => {
  const budget = (limiter: LookupLimiter, client: string, at: number): LookupBudget => ({ take: () => limiter.take(client, at), refund: () => limiter.refund(client) });
  const none: LookupBudget = { take: () => false, refund: () => undefined };

  function directory() {
    const queried: string[] = [];
    const repository = {
      findKeyWithMerchant: async (keyId: string) => {
        queried.push(keyId);
        return keyId === 'known' ? ({ keyId } as ApiKeyEntity) : null;
      },
    } as unknown as MerchantsRepository;
    return { queried, directory: new ApiKeyDirectory(repository, 60_000) };
  }

  it('stops querying made-up ids at the client\'s limit, and answers cached ids without asking it', async () => {
    const { queried, directory: keys } = directory();
    const limiter = new LookupLimiter(20, 40);
    const at = Date.now();
    const flood = [];
    for (let i = 0; i < 200; i++) flood.push(await keys.find(`made-up-${i}`, budget(limiter, '203.0.113.7', at)));
    expect(flood.filter((r) => r === 'limited')).toHaveLength(160);
    expect(queried).toHaveLength(40);
    // Another client is not held up; a cached id needs no lookup at all, so the limit does not apply to it.
    expect(await keys.find('known', budget(limiter, '203.0.113.8', at))).toEqual({ keyId: 'known' });
    expect(await keys.find('known', none)).toEqual({ keyId: 'known' });
    expect(await keys.find('made-up-0', none)).toBeNull();
    expect(queried).toHaveLength(41);
  });

  it('concurrent requests with one key whose cache entry expired share one query and spend one lookup', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queried: string[] = [];
    const repository = {
      findKeyWithMerchant: async (keyId: string) => {
        queried.push(keyId);
        await gate;
        return { keyId } as ApiKeyEntity;
      },
    } as unknown as MerchantsRepository;
    const keys = new ApiKeyDirectory(repository, 60_000);
    let taken = 0;
    let refunded = 0;
    const counting: LookupBudget = { take: () => ++taken <= 1, refund: () => (refunded += 1) };
    const concurrent = Array.from({ length: 64 }, () => keys.find('busy-merchant-key', counting));
    release();
    expect(await Promise.all(concurrent)).toEqual(Array.from({ length: 64 }, () => ({ keyId: 'busy-merchant-key' })));
    expect(taken).toBe(1);
    // It found a key: the lookup is given back.
    expect(refunded).toBe(1);
    expect(queried).toEqual(['busy-merchant-key']);
  });

  it('a merchant\'s own keys never use up its client\'s lookups, even with the cache off; made-up ids do', async () => {
    const queried: string[] = [];
    const repository = {
      findKeyWithMerchant: async (keyId: string) => (queried.push(keyId), keyId.startsWith('real') ? ({ keyId } as ApiKeyEntity) : null),
    } as unknown as MerchantsRepository;
    const uncached = new ApiKeyDirectory(repository, 0);
    const limiter = new LookupLimiter(20, 40);
    const at = Date.now();
    for (let i = 0; i < 500; i++) expect(await uncached.find(`real-${i % 3}`, budget(limiter, '198.51.100.1', at))).not.toBe('limited');
    const madeUp = [];
    for (let i = 0; i < 100; i++) madeUp.push(await uncached.find(`made-up-${i}`, budget(limiter, '198.51.100.1', at)));
    expect(madeUp.filter((r) => r === 'limited')).toHaveLength(60);
  });

  it('a key found before still gets in after its client\'s lookups went on made-up ids (a shared address)', async () => {
    const queried: string[] = [];
    const repository = {
      findKeyWithMerchant: async (keyId: string) => (queried.push(keyId), keyId === 'quiet-merchant' ? ({ keyId } as ApiKeyEntity) : null),
    } as unknown as MerchantsRepository;
    // The cache off: every use of the key looks it up, as after its entry expired.
    const keys = new ApiKeyDirectory(repository, 0);
    const limiter = new LookupLimiter(20, 40);
    const at = Date.now();
    expect(await keys.find('quiet-merchant', budget(limiter, '192.0.2.1', at))).toEqual({ keyId: 'quiet-merchant' });
    const flood = [];
    for (let i = 0; i < 100; i++) flood.push(await keys.find(`made-up-${i}`, budget(limiter, '192.0.2.1', at)));
    expect(flood.filter((r) => r === 'limited')).toHaveLength(60);
    expect(await keys.find('quiet-merchant', budget(limiter, '192.0.2.1', at))).toEqual({ keyId: 'quiet-merchant' });
    // Made-up ids from that address stay refused.
    expect(await keys.find('made-up-again', budget(limiter, '192.0.2.1', at))).toBe('limited');
    expect(queried.filter((id) => id === 'quiet-merchant')).toHaveLength(2);
  });

  it('refills the limit over time', () => {
    const limiter = new LookupLimiter(20, 40);
    const at = 1_000_000;
    for (let i = 0; i < 40; i++) expect(limiter.take('c', at)).toBe(true);
    expect(limiter.take('c', at)).toBe(false);
    expect(limiter.take('c', at + 100)).toBe(true); // 0.1 s: 2 more
    expect(limiter.take('c', at + 100)).toBe(true);
    expect(limiter.take('c', at + 100)).toBe(false);
  });

  it('tells what a client has left for the RateLimit headers of a 401', () => {
    const limiter = new LookupLimiter(20, 40);
    const at = 1_000_000;
    expect(limiter.state('new', at)).toEqual({ limit: 40, remaining: 40, resetSeconds: 0 });
    for (let i = 0; i < 40; i++) limiter.take('c', at);
    expect(limiter.state('c', at)).toEqual({ limit: 40, remaining: 0, resetSeconds: 2 });
    expect(limiter.state('c', at + 500)).toEqual({ limit: 40, remaining: 10, resetSeconds: 2 });
    expect(limiter.state('c', at + 2000)).toEqual({ limit: 40, remaining: 40, resetSeconds: 0 });
  });
});

// Every API_KEY_CACHE_MS each gateway looked its keys up again, and every request of that key waited for the
// query: with Postgres busy (a ledger draining a backlog) that wait was the balance read's p99 (hundreds of ms).
describe('ApiKeyDirectory refreshing ahead', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  function slowRepository() {
    const queried: string[] = [];
    let revoked = false;
    let gate: Promise<void> = Promise.resolve();
    const repository = {
      findKeyWithMerchant: async (keyId: string) => {
        queried.push(keyId);
        const answer = { keyId, revokedAt: revoked ? new Date() : null } as unknown as ApiKeyEntity;
        await gate;
        return answer;
      },
    } as unknown as MerchantsRepository;
    return {
      queried,
      repository,
      revoke: () => (revoked = true),
      hold: () => {
        let release!: () => void;
        gate = new Promise<void>((resolve) => (release = resolve));
        return release;
      },
    };
  }

  it('answers a key past its refresh time at once and refreshes it with one query in the background', async () => {
    const db = slowRepository();
    // Refreshed after 300 ms: the last find must come within that of the refresh, even on a machine that stalls.
    const keys = new ApiKeyDirectory(db.repository, 300);
    expect(await keys.find('k')).toMatchObject({ keyId: 'k' });
    await sleep(330);
    const release = db.hold(); // the refresh's query hangs
    const answers = await Promise.all(Array.from({ length: 20 }, () => keys.find('k')));
    expect(answers.every((a) => (a as ApiKeyEntity | null)?.keyId === 'k')).toBe(true);
    expect(db.queried).toEqual(['k', 'k']);
    release();
    await sleep(10);
    await keys.find('k'); // refreshed: fresh again, no query
    expect(db.queried).toEqual(['k', 'k']);
  });

  it(`never answers an entry older than ${KEY_MAX_AGE_MS} ms: a revocation holds within a second`, async () => {
    const db = slowRepository();
    const keys = new ApiKeyDirectory(db.repository, 1000);
    expect(await keys.find('k')).toMatchObject({ revokedAt: null });
    db.revoke();
    await sleep(KEY_MAX_AGE_MS + 20);
    expect(await keys.find('k')).toMatchObject({ revokedAt: expect.any(Date) });
  });

  it('keeps answering a refreshed key only until its maximum age when the refresh fails', async () => {
    const queried: number[] = [];
    let fail = false;
    const repository = {
      findKeyWithMerchant: async (keyId: string) => {
        queried.push(Date.now());
        if (fail) throw new Error('database unavailable');
        return { keyId } as ApiKeyEntity;
      },
    } as unknown as MerchantsRepository;
    const keys = new ApiKeyDirectory(repository, 50);
    await keys.find('k');
    fail = true;
    await sleep(80);
    expect(await keys.find('k')).toMatchObject({ keyId: 'k' }); // answered; its refresh fails
    await sleep(KEY_MAX_AGE_MS);
    await expect(keys.find('k')).rejects.toThrow('database unavailable');
  });
});
