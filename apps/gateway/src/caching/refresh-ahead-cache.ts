import { LRUCache } from 'lru-cache';

export interface RefreshAheadOptions<V, C> {
  /** An entry is answered as it is this long; after that a use still answers it but starts its reload. 0: no cache. */
  refreshAfterMs: number;
  /** No entry is answered older than this (counted from its load's start): the bound on how stale an answer is. */
  maxAgeMs: number;
  max: number;
  load: (key: string, context: C) => Promise<V>;
}

/**
 * Values loaded once however many ask meanwhile, kept for `maxAgeMs` and reloaded ahead: a steadily used entry is
 * replaced in the background after `refreshAfterMs`, so its users never wait on its load, even while the source is
 * slow. A failed reload leaves the entry until its maximum age; a failed load is not kept.
 */
export class RefreshAheadCache<V, C = void> {
  private readonly entries?: LRUCache<string, { value: V; at: number }>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly options: RefreshAheadOptions<V, C>) {
    if (options.refreshAfterMs > 0) this.entries = new LRUCache({ max: options.max, ttl: options.maxAgeMs });
  }

  /** The kept value (its reload started when due), or undefined when there is none young enough. */
  cached(key: string, context: C): { value: V } | undefined {
    const entry = this.entries?.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at >= this.options.refreshAfterMs) this.load(key, context).catch(() => undefined);
    return entry;
  }

  /** The load of `key` under way, if one is. */
  inFlight(key: string): Promise<V> | undefined {
    return this.loading.get(key);
  }

  /** Loads `key` (or joins the load under way) and keeps the answer until its maximum age. */
  load(key: string, context: C): Promise<V> {
    const shared = this.loading.get(key);
    if (shared) return shared;
    const at = Date.now();
    const loaded = this.options
      .load(key, context)
      .then((value) => {
        // The entry's age counts from the load's start: what it read may be that old.
        this.entries?.set(key, { value, at }, { ttl: Math.max(1, this.options.maxAgeMs - (Date.now() - at)) });
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, loaded);
    return loaded;
  }

  /** The kept value, else the load under way, else a new load. */
  async get(key: string, context: C): Promise<V> {
    const hit = this.cached(key, context);
    return hit ? hit.value : this.load(key, context);
  }
}
