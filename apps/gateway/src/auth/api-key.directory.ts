import { LRUCache } from 'lru-cache';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';

type Lookup = { key: ApiKeyEntity | null };

/**
 * API key records (with their merchant) by key id, reused for at most `ttlMs`: revocation and merchant changes
 * reach every instance within that time with no cross-instance messaging. Unknown ids are cached too, so a
 * flood of made-up keys costs one query per id, and concurrent lookups of one id share a query.
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

  async find(keyId: string): Promise<ApiKeyEntity | null> {
    if (!this.cache) return this.repository.findKeyWithMerchant(keyId);
    const found = await this.cache.fetch(keyId);
    return found?.key ?? null;
  }
}
