import { LRUCache } from 'lru-cache';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';

type Lookup = { key: ApiKeyEntity | null };

/** The lookups a client may still cause (LookupLimiter): one is taken before a query, given back if it found a key. */
export interface LookupBudget {
  take(): boolean;
  refund(): void;
}

const UNLIMITED: LookupBudget = { take: () => true, refund: () => undefined };

/**
 * API key records (with their merchant) by key id, reused for at most `ttlMs`: revocation and merchant changes
 * reach every instance within that time with no cross-instance messaging. Unknown ids are cached too, and
 * concurrent lookups of one id share a query. A lookup that would query is first counted against its client
 * (`budget`): a flood of made-up key ids stops at the limit instead of costing a query each.
 */
export class ApiKeyDirectory {
  private readonly cache?: LRUCache<string, Lookup>;
  /** Ids being queried now: callers arriving meanwhile share that query, so they cost the client nothing. */
  private readonly querying = new Set<string>();

  constructor(
    private readonly repository: MerchantsRepository,
    ttlMs: number,
    maxEntries = 10000,
  ) {
    if (ttlMs > 0) {
      this.cache = new LRUCache<string, Lookup>({
        max: maxEntries,
        ttl: ttlMs,
        fetchMethod: async (keyId) => {
          this.querying.add(keyId);
          try {
            return { key: await this.repository.findKeyWithMerchant(keyId) };
          } finally {
            this.querying.delete(keyId);
          }
        },
      });
    }
  }

  /**
   * The key, or null when there is none; 'limited' when finding out would query and `budget` has no lookup left.
   * A lookup that finds a key is given back: a merchant's own keys never use up its client's lookups, only
   * made-up ids do.
   */
  async find(keyId: string, budget: LookupBudget = UNLIMITED): Promise<ApiKeyEntity | null | 'limited'> {
    // Only the caller whose lookup starts a query counts: a merchant's 64 concurrent requests arriving as its
    // cached key expires share one query and must not spend 64 of the client's lookups (they were answered 429).
    const queries = !this.cache || (!this.cache.has(keyId) && !this.querying.has(keyId));
    if (queries && !budget.take()) return 'limited';
    const found = this.cache ? ((await this.cache.fetch(keyId))?.key ?? null) : await this.repository.findKeyWithMerchant(keyId);
    if (queries && found !== null) budget.refund();
    return found;
  }
}
