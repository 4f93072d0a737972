import { IntervalJob } from '@payments/platform';
import type { ProviderRefundSettlement } from './provider-refunds';

/** Refunds one pass asks about at most, per round (sessions is asked one refund at a time). */
const BATCH = 20;

/**
 * Asks about refunds pending at their provider in the background, every PROVIDER_REFUND_CHECK_INTERVAL_MS, until each
 * completes or fails: one the provider processes later, or one whose request found sessions or the provider down.
 * Each refund is claimed in the statement that picks it, under a 2 s lease the pass renews while it asks, so instances
 * do not ask about one twice at once and a pass that dies holds nothing for longer than the lease.
 */
export class ProviderRefundScheduler extends IntervalJob<number> {
  constructor(
    private readonly refunds: ProviderRefundSettlement,
    intervalMs: number,
  ) {
    super('ProviderRefundScheduler', intervalMs);
  }

  /** One pass: every refund due now. */
  async runOnce(): Promise<number> {
    let checked = 0;
    for (;;) {
      const batch = await this.refunds.checkDue(BATCH);
      checked += batch;
      if (batch < BATCH || this.stopped) return checked;
    }
  }
}
