import { bucketResult, type TokenBucketResult, type TokenGrant } from './token-bucket';

/** How long tokens taken ahead stay usable here; unused ones are given up (the bucket has refilled meanwhile). */
export const LEASE_TTL_MS = 1000;
/** A lease covers about this much of the key's recent traffic. */
const LEASE_SPAN_MS = 20;
/** No more than this share of the key's limit, so several gateway instances never strand much of it. */
const LEASE_SHARE_OF_LIMIT = 1 / 20;
/** The key's rate is counted over windows of this length. */
const RATE_WINDOW_MS = 250;
/** Keys not seen for this long are forgotten. */
const IDLE_MS = 10_000;

/**
 * How many tokens to take from the bucket in Redis at once: one for a key far below its limit or with a small
 * limit (every decision made in Redis, exactly as without leases); for a busy key, about LEASE_SPAN_MS of its
 * traffic, at most LEASE_SHARE_OF_LIMIT of its limit.
 */
export function leaseSize(requestsPerSecond: number, limitPerSecond: number): number {
  const cap = Math.floor(limitPerSecond * LEASE_SHARE_OF_LIMIT);
  return Math.max(1, Math.min(cap, Math.floor((requestsPerSecond * LEASE_SPAN_MS) / 1000)));
}

interface KeyState {
  limit: number;
  /** Tokens taken from Redis and not used yet, usable until `expiresAt`. */
  held: number;
  expiresAt: number;
  /** What the bucket in Redis held after the last take. */
  bucketLeft: number;
  windowStart: number;
  windowCount: number;
  /** Requests per second in the last whole window. */
  rate: number;
  lastSeen: number;
  taking?: Promise<TokenGrant>;
}

/**
 * A key's requests spend tokens this instance took from the shared bucket ahead of them, so a busy key asks Redis
 * once per lease instead of once per request. Nothing is admitted that the bucket did not give: a lease is taken
 * from Redis before any request spends it, so several instances together never exceed the limit; at worst a
 * lease's unused tokens are given up when it expires, and the key is refused slightly before its limit.
 */
export class TokenLeases {
  private readonly keys = new Map<string, KeyState>();
  private lastSweep = 0;

  constructor(
    private readonly take: (key: string, limitPerSecond: number, want: number) => Promise<TokenGrant>,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(key: string, limitPerSecond: number): Promise<TokenBucketResult> {
    return this.settle(this.stateOf(key, limitPerSecond), key, limitPerSecond);
  }

  /**
   * For a request that can take its token in a Redis round trip it makes anyway (the idempotency claim): the
   * answer from a held token, or after a lease being taken, as `consume` gives it; undefined when that round trip
   * is to take the request's one token (it costs nothing there), whose grant goes to `granted`. One token, not a
   * lease: requests arriving together would each take one and strand the rest. Counted once either way.
   */
  async plan(key: string, limitPerSecond: number): Promise<TokenBucketResult | undefined> {
    const state = this.stateOf(key, limitPerSecond);
    if ((state.held > 0 && this.now() < state.expiresAt) || state.taking) return this.settle(state, key, limitPerSecond);
    return undefined;
  }

  /** What a planned request's round trip took (its one token, or none); tokens held here stay as they are. */
  granted(key: string, limitPerSecond: number, grant: TokenGrant): TokenBucketResult {
    const state = this.keys.get(key);
    const held = state && state.limit === limitPerSecond && this.now() < state.expiresAt ? state.held : 0;
    if (state && state.limit === limitPerSecond) state.bucketLeft = grant.left;
    return bucketResult(limitPerSecond, grant.taken > 0, grant.left + held);
  }

  private async settle(state: KeyState, key: string, limitPerSecond: number): Promise<TokenBucketResult> {
    for (;;) {
      const now = this.now();
      if (state.held > 0 && now < state.expiresAt) {
        state.held -= 1;
        return bucketResult(limitPerSecond, true, state.bucketLeft + state.held);
      }
      // Requests arriving while a lease is being taken wait for it rather than ask Redis each. If it fails they fail
      // with it (and the limiter lets them through): asking again one after another would queue each behind the
      // previous one's timeout while Redis does not answer.
      if (state.taking) {
        const shared = await state.taking;
        // The bucket was empty a moment ago: refused alike, without asking again.
        if (shared.taken === 0) return bucketResult(limitPerSecond, false, shared.left);
        continue;
      }
      const taking = this.take(key, limitPerSecond, leaseSize(this.rateOf(state, now), limitPerSecond));
      state.taking = taking;
      let grant: TokenGrant;
      try {
        grant = await taking;
      } finally {
        state.taking = undefined;
      }
      state.bucketLeft = grant.left;
      if (grant.taken === 0) return bucketResult(limitPerSecond, false, grant.left);
      // This request spends the first token; the rest are held for the key's next requests.
      state.held = grant.taken - 1;
      state.expiresAt = this.now() + LEASE_TTL_MS;
      return bucketResult(limitPerSecond, true, state.bucketLeft + state.held);
    }
  }

  private stateOf(key: string, limit: number): KeyState {
    const now = this.now();
    this.sweep(now);
    let state = this.keys.get(key);
    if (!state || state.limit !== limit) {
      // A new limit (the merchant's was changed): tokens taken under the old one are given up.
      state = { limit, held: 0, expiresAt: 0, bucketLeft: limit, windowStart: now, windowCount: 0, rate: 0, lastSeen: now };
      this.keys.set(key, state);
    }
    if (now - state.windowStart >= RATE_WINDOW_MS) {
      // The last window's rate, or 0 when the key was quiet for longer than a window.
      state.rate = now - state.windowStart < 2 * RATE_WINDOW_MS ? (state.windowCount * 1000) / (now - state.windowStart) : 0;
      state.windowStart = now;
      state.windowCount = 0;
    }
    state.windowCount += 1;
    state.lastSeen = now;
    return state;
  }

  /** The key's recent rate: the last whole window's, or the current one's once it is long enough to tell. */
  private rateOf(state: KeyState, now: number): number {
    const elapsed = now - state.windowStart;
    return elapsed >= RATE_WINDOW_MS / 5 ? Math.max(state.rate, (state.windowCount * 1000) / elapsed) : state.rate;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < IDLE_MS) return;
    this.lastSweep = now;
    for (const [key, state] of this.keys) if (now - state.lastSeen > IDLE_MS && !state.taking) this.keys.delete(key);
  }
}
