import type { BalanceResource, GetBalanceCommand } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import { RefreshAheadCache } from '../caching/refresh-ahead-cache';

/**
 * The balance shows a payment's effect within 1 s at p99 (read-your-writes is not promised). No balance is
 * answered older than this, counted from when its read started; with the ledger's posting lag (p99 tens of ms) the
 * effect shows within the second.
 */
export const BALANCE_MAX_AGE_MS = 750;

type Context = { scope: GetBalanceCommand; caller: CommandOptions };

/**
 * A merchant's balance as this gateway instance last read it from the ledger: reused as it is for `refreshAfterMs`,
 * then still answered while a new read replaces it, never past BALANCE_MAX_AGE_MS. Reads arriving together share
 * one question to the ledger, and a merchant polling its balance in a tight loop costs the ledger a few reads a
 * second however fast it polls. 0 turns it off: every read asks the ledger.
 */
export class BalanceCache {
  private readonly balances?: RefreshAheadCache<BalanceResource, Context>;

  constructor(
    refreshAfterMs: number,
    private readonly read: (scope: GetBalanceCommand, caller: CommandOptions) => Promise<BalanceResource>,
  ) {
    if (refreshAfterMs <= 0) return;
    this.balances = new RefreshAheadCache({
      refreshAfterMs,
      maxAgeMs: BALANCE_MAX_AGE_MS,
      max: 50_000,
      load: (_key, { scope, caller }) => read(scope, caller),
    });
  }

  get(scope: GetBalanceCommand, caller: CommandOptions): Promise<BalanceResource> {
    if (!this.balances) return this.read(scope, caller);
    return this.balances.get(`${scope.merchant_id}:${scope.environment}`, { scope, caller });
  }
}
