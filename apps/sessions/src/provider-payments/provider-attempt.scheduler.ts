import { IntervalJob } from '@payments/platform';
import type { ProviderPayments } from './provider-payments';

/** Attempts one round verifies at most, side by side (so a slow provider costs a round one timeout, not twenty). */
const BATCH = 20;

/**
 * Verifies open provider attempts again in the background, every PROVIDER_CHECK_INTERVAL_MS: a customer who never
 * came back, or a verify the provider did not answer, still ends paid or failed. Each attempt is claimed in the
 * statement that picks it, under a 2 s lease the pass renews while it verifies, so several instances do not verify
 * one twice at once and a pass that dies holds nothing for longer than the lease.
 */
export class ProviderAttemptScheduler extends IntervalJob<number> {
  constructor(
    private readonly payments: ProviderPayments,
    intervalMs: number,
  ) {
    super('ProviderAttemptScheduler', intervalMs);
  }

  /** Stops, then lets the verifies notifications started end (graceful shutdown). */
  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    await this.payments.idle();
  }

  /** One pass: every attempt due now. */
  async runOnce(): Promise<number> {
    let checked = 0;
    for (;;) {
      const batch = await this.payments.checkDue(BATCH);
      checked += batch;
      if (batch < BATCH || this.stopped) return checked;
    }
  }
}
