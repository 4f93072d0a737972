import { LRUCache } from 'lru-cache';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';

/** A key record as of `at` (when its query started: the record is at least that fresh). */
type Lookup = { key: ApiKeyEntity | null; at: number };

/** DESIGN §5: a revocation takes effect on every gateway instance within one second; no entry is used older. */
export const KEY_MAX_AGE_MS = 1000;

/** The lookups a client may still cause (LookupLimiter): one is taken before a query, given back if it found a key. */
export interface LookupBudget {
  take(): boolean;
  refund(): void;
}

const UNLIMITED: LookupBudget = { take: () => true, refund: () => undefined };

/**
 * API key records (with their merchant) by key id. An entry is used as it is for `refreshAfterMs`; after that a use
 * still answers it but starts a query that replaces it (refresh ahead), so requests never wait on a steadily used
 * key's lookup, even while the database is slow; no entry is used past KEY_MAX_AGE_MS, so revocation and merchant
 * changes reach every instance within a second with no cross-instance messaging. Unknown ids are cached too, and
 * concurrent lookups of one id share a query. A lookup that would make a caller wait on a query is first counted
 * against its client (`budget`): a flood of made-up key ids stops at the limit instead of costing a query each.
 */
export class ApiKeyDirectory {
  private readonly cache?: LRUCache<string, Lookup>;
  /** Ids being queried now: callers arriving meanwhile share that query, so they cost the client nothing. */
  private readonly loading = new Map<string, Promise<Lookup>>();

  constructor(
    private readonly repository: MerchantsRepository,
    private readonly refreshAfterMs: number,
    maxEntries = 10000,
  ) {
    if (refreshAfterMs > 0) this.cache = new LRUCache<string, Lookup>({ max: maxEntries, ttl: KEY_MAX_AGE_MS });
  }

  /**
   * The key, or null when there is none; 'limited' when finding out would query and `budget` has no lookup left.
   * A lookup that finds a key is given back: a merchant's own keys never use up its client's lookups, only
   * made-up ids do.
   */
  async find(keyId: string, budget: LookupBudget = UNLIMITED): Promise<ApiKeyEntity | null | 'limited'> {
    const cached = this.cache?.get(keyId);
    if (cached) {
      // A failed refresh leaves the entry until its maximum age; the caller after that queries (and sees the error).
      if (Date.now() - cached.at >= this.refreshAfterMs) this.load(keyId).catch(() => undefined);
      return cached.key;
    }
    // Only the caller whose lookup starts a query counts: a merchant's 64 concurrent requests arriving as its
    // cached key expires share one query and must not spend 64 of the client's lookups (they were answered 429).
    const shared = this.loading.get(keyId);
    if (shared) return (await shared).key;
    if (!budget.take()) return 'limited';
    const found = (await this.load(keyId)).key;
    if (found !== null) budget.refund();
    return found;
  }

  /** Queries the key once however many ask meanwhile, and keeps the answer (when caching) until its maximum age. */
  private load(keyId: string): Promise<Lookup> {
    const shared = this.loading.get(keyId);
    if (shared) return shared;
    const at = Date.now();
    const query = this.repository
      .findKeyWithMerchant(keyId)
      .then((key) => {
        const lookup = { key, at };
        // The entry's age counts from the query's start: what it read may be that old.
        this.cache?.set(keyId, lookup, { ttl: Math.max(1, KEY_MAX_AGE_MS - (Date.now() - at)) });
        return lookup;
      })
      .finally(() => this.loading.delete(keyId));
    this.loading.set(keyId, query);
    return query;
  }
}
