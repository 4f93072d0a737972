import { LRUCache } from 'lru-cache';
import { RefreshAheadCache } from '../caching/refresh-ahead-cache';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantsRepository } from '../merchants/merchants.repository';

/** DESIGN §5: a revocation takes effect on every gateway instance within one second; no entry is used older. */
export const KEY_MAX_AGE_MS = 1000;

/** The lookups a client may still cause (LookupLimiter): one is taken before a query, given back if it found a key. */
export interface LookupBudget {
  take(): boolean;
  refund(): void;
}

const UNLIMITED: LookupBudget = { take: () => true, refund: () => undefined };

/**
 * API key records (with their merchant) by key id, kept by a RefreshAheadCache: an entry is used as it is for
 * `refreshAfterMs`; after that a use still answers it but starts a query that replaces it, so requests never wait on
 * a steadily used key's lookup, even while the database is slow; no entry is used past KEY_MAX_AGE_MS, so revocation and merchant
 * changes reach every instance within a second with no cross-instance messaging. Unknown ids are cached too, and
 * concurrent lookups of one id share a query. A lookup that would make a caller wait on a query is first counted
 * against its client (`budget`): a flood of made-up key ids stops at the limit instead of costing a query each.
 */
export class ApiKeyDirectory {
  private readonly keys: RefreshAheadCache<ApiKeyEntity | null>;
  /**
   * Key ids found before (revoked ones included): their lookups are never counted. A quiet merchant's cached key
   * expires after a second; counted against its address, its next request was a 429 once someone else on that
   * address (a NAT, a shared proxy) had spent the lookups on made-up ids. Only real ids get here, and the cache
   * still lets each cost at most one query per second.
   */
  private readonly known: LRUCache<string, true>;

  constructor(
    repository: MerchantsRepository,
    refreshAfterMs: number,
    maxEntries = 10000,
  ) {
    this.keys = new RefreshAheadCache({ refreshAfterMs, maxAgeMs: KEY_MAX_AGE_MS, max: maxEntries, load: (keyId) => repository.findKeyWithMerchant(keyId) });
    this.known = new LRUCache({ max: maxEntries * 10 });
  }

  /**
   * The key, or null when there is none; 'limited' when finding out would query and `budget` has no lookup left.
   * A lookup that finds a key is given back, and a key found once is never counted again: a merchant's own keys
   * never use up its client's lookups, only made-up ids do, and once those are spent a known key still gets in.
   */
  async find(keyId: string, budget: LookupBudget = UNLIMITED): Promise<ApiKeyEntity | null | 'limited'> {
    const cached = this.keys.cached(keyId);
    if (cached) return cached.value;
    // Only the caller whose lookup starts a query counts: a merchant's 64 concurrent requests arriving as its
    // cached key expires share one query and must not spend 64 of the client's lookups (they were answered 429).
    const shared = this.keys.inFlight(keyId);
    if (shared) return shared;
    if (this.known.has(keyId)) return this.keys.load(keyId);
    if (!budget.take()) return 'limited';
    const found = await this.keys.load(keyId);
    if (found !== null) {
      budget.refund();
      this.known.set(keyId, true);
    }
    return found;
  }
}
