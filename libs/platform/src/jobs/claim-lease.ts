/**
 * How long a background job's claim on a row lasts unless its living owner renews it (DESIGN §3: a crash frees
 * it within 2 s). A claim past its lease may be taken by another instance; the work it stands for must then be
 * safe to do twice, which the command ids it writes under make it (one outcome per id).
 */
export const CLAIM_LEASE_MS = 2000;
/** How often the owner renews its claims: four times a lease, so a late timer or a slow statement does not lose one. */
export const CLAIM_RENEW_EVERY_MS = 500;

/** The rows a pass claimed and still works through; `release` one once its outcome (or next turn) is written. */
export interface HeldClaims {
  release(id: string): void;
}

export interface KeepingClaimsOptions {
  /** Moves these rows' claims to `until` (never back: a row whose outcome or next turn is written keeps it). */
  extend(ids: readonly string[], until: Date): Promise<unknown>;
  /** A renewal that failed; it is tried again at the next tick and the work goes on. */
  onRenewalError(error: unknown): void;
  /** The clock the claims were taken by (the job's). */
  now?: () => Date;
}

/**
 * Runs `work` over the rows a pass claimed, renewing their leases every CLAIM_RENEW_EVERY_MS until each is
 * released or the work ends.
 */
export async function keepingClaims<T>(ids: Iterable<string>, options: KeepingClaimsOptions, work: (claims: HeldClaims) => Promise<T>): Promise<T> {
  const held = new Set(ids);
  const now = options.now ?? (() => new Date());
  let renewing: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (renewing || held.size === 0) return;
    renewing = options
      .extend([...held], new Date(now().getTime() + CLAIM_LEASE_MS))
      .then(() => undefined, options.onRenewalError)
      .finally(() => (renewing = undefined));
  }, CLAIM_RENEW_EVERY_MS);
  try {
    return await work({ release: (id) => held.delete(id) });
  } finally {
    clearInterval(timer);
    held.clear();
    // No renewal lands after the work's own last writes (none would undo them, as `extend` never moves a claim back).
    await renewing;
  }
}
