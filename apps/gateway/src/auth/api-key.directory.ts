import { LRUCache } from 'lru-cache';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';

type Lookup = { key: ApiKeyEntity | null };

/**
 * API key records (with their merchant) by key id, reused for at most `ttlMs`: revocation and merchant changes
 * reach every instance within that time with no cross-instance messaging. Unknown ids are cached too, and
 * concurrent lookups of one id share a query. A lookup that would query is first counted against its client
 * (`allowQuery`): a flood of made-up key ids stops at the limit instead of costing a query each.
 */
export class ApiKeyDirectory {
  private readonly cache?: LRUCache<string, Lookup>;

  constructor(
    private readonly repository: MerchantsRepository,
    ttlMs: number,
    maxEntries = 10000,
  ) {
    if (ttlMs > 0) {
      this.cache = new LRUCache<string, Lookup>({
        max: maxEntries,
        ttl: ttlMs,
        fetchMethod: async (keyId) => ({ key: await this.repository.findKeyWithMerchant(keyId) }),
      });
    }
  }

  /** The key, or null when there is none; 'limited' when finding out would query and `allowQuery` said no. */
  async find(keyId: string, allowQuery: () => boolean = () => true): Promise<ApiKeyEntity | null | 'limited'> {
    if (!this.cache) return allowQuery() ? this.repository.findKeyWithMerchant(keyId) : 'limited';
    if (!this.cache.has(keyId) && !allowQuery()) return 'limited';
    const found = await this.cache.fetch(keyId);
    return found?.key ?? null;
  }
}
