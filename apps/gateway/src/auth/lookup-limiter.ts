import { LRUCache } from 'lru-cache';

/**
 * How many key lookups that miss the cache (and so cost a database query) one client may cause, per second, in
 * one gateway instance. A merchant's own keys stay cached, so its misses are a few a second at most; a flood of
 * made-up key ids is refused here before it reaches the database.
 */
export class LookupLimiter {
  private readonly buckets = new LRUCache<string, { tokens: number; at: number }>({ max: 50_000 });

  constructor(
    private readonly perSecond: number,
    private readonly burst: number = perSecond * 2,
  ) {}

  /** Takes a lookup for `client`; false when it has none left (try again in a second). */
  take(client: string, now = Date.now()): boolean {
    const bucket = this.buckets.get(client) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(client, bucket);
    return allowed;
  }

  /**
   * What `client` has left, for the RateLimit-* headers of an answer that has no key to show a bucket for (401):
   * the lookups its bucket holds (the burst: Remaining never exceeds Limit), those it may still cause now, and the
   * seconds until its bucket is full again.
   */
  state(client: string, now = Date.now()): { limit: number; remaining: number; resetSeconds: number } {
    const bucket = this.buckets.peek(client);
    const tokens = bucket ? Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond) : this.burst;
    return { limit: this.burst, remaining: Math.floor(tokens), resetSeconds: Math.ceil((this.burst - tokens) / this.perSecond) };
  }

  /** Gives back a lookup taken for `client` (it found a key: only made-up ids are limited). */
  refund(client: string): void {
    const bucket = this.buckets.get(client);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }
}
