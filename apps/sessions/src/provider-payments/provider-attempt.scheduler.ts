import { IntervalJob } from '@payments/platform';
import type { ProviderPayments } from './provider-payments';

/** Attempts one pass verifies at most, per round (a provider is asked one attempt at a time). */
const BATCH = 20;

/**
 * Verifies open provider attempts again in the background, every PROVIDER_CHECK_INTERVAL_MS: a customer who never
 * came back, or a verify the provider did not answer, still ends paid or failed. Each attempt is claimed (pushed
 * to its next check) in the statement that picks it, so several instances never verify one twice at once.
 */
export class ProviderAttemptScheduler extends IntervalJob<number> {
  constructor(
    private readonly payments: ProviderPayments,
    intervalMs: number,
  ) {
    super('ProviderAttemptScheduler', intervalMs);
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
