import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';
import { ApiKeyDirectory } from './api-key.directory';
import { LookupLimiter } from './lookup-limiter';

// Unknown API key ids cost a database query each before any limit applied: a flood of made-up ids was a flood
// of queries. The directory now asks the client's lookup limit before every query, and only then.
describe('ApiKeyDirectory with a lookup limit per client', () => {
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
    for (let i = 0; i < 200; i++) flood.push(await keys.find(`made-up-${i}`, () => limiter.take('203.0.113.7', at)));
    expect(flood.filter((r) => r === 'limited')).toHaveLength(160);
    expect(queried).toHaveLength(40);
    // Another client is not held up; a cached id needs no lookup at all, so the limit does not apply to it.
    expect(await keys.find('known', () => limiter.take('203.0.113.8', at))).toEqual({ keyId: 'known' });
    expect(await keys.find('known', () => false)).toEqual({ keyId: 'known' });
    expect(await keys.find('made-up-0', () => false)).toBeNull();
    expect(queried).toHaveLength(41);
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
});
