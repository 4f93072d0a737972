/**
 * The delivery leases one instance holds, and which of them to renew now. A lease is short (WEBHOOK_LEASE_MS, at
 * most 2 s) so that a dead instance's claims are free soon; its living owner renews it while the attempt runs,
 * however long that is (up to the 10 s timeout). Times are this process's clock in ms, taken when the claim or
 * renewal was sent: Postgres set the lease's end after that moment, so the book never thinks a lease longer than it is.
 */
export class LeaseBook {
  private readonly held = new Map<string, { token: string; setAt: number }>();
  /** A lease set this recently is left for the next tick: most attempts end before they need a renewal. */
  private readonly minAgeMs: number;

  constructor(
    private readonly leaseMs: number,
    /** How often the owner renews (renewalIntervalMs). */
    readonly renewEveryMs: number = renewalIntervalMs(leaseMs),
  ) {
    this.minAgeMs = renewEveryMs / 2;
  }

  /** A delivery claimed with `token` by a claim sent at `at`. */
  add(deliveryId: string, token: string, at: number): void {
    this.held.set(deliveryId, { token, setAt: at });
  }

  /** The attempt ended (recorded, abandoned or given up): nothing more to renew. */
  remove(deliveryId: string): void {
    this.held.delete(deliveryId);
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * The leases to renew at `now`, as parallel lists (a renewal is keyed by delivery and token, so a delivery that
   * another instance took over under a new token is not renewed). A lease that was not renewed last time (its row
   * was busy, or the statement failed) is still old, so it is asked for again.
   */
  due(now: number): { ids: string[]; tokens: string[] } {
    const ids: string[] = [];
    const tokens: string[] = [];
    for (const [id, lease] of this.held) {
      if (now - lease.setAt < this.minAgeMs) continue;
      ids.push(id);
      tokens.push(lease.token);
    }
    return { ids, tokens };
  }

  /** The renewal sent at `at` extended these (others were finished, busy or taken over). */
  renewed(deliveryIds: Iterable<string>, at: number): void {
    for (const id of deliveryIds) {
      const lease = this.held.get(id);
      if (lease) lease.setAt = at;
    }
  }

  /** Held leases that have run out by `now` by this book's count: another instance may be sending them too. */
  lapsed(now: number): string[] {
    return [...this.held].filter(([, lease]) => now - lease.setAt >= this.leaseMs).map(([id]) => id);
  }
}

/**
 * A quarter of the lease: a lease is renewed at most 1.5 ticks after it was set, so a renewal may be late or
 * fail twice before the lease lapses.
 */
export function renewalIntervalMs(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / 4));
}
