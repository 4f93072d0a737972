import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ProviderPayments } from './provider-payments';

/** Attempts one pass verifies at most, per round (a provider is asked one attempt at a time). */
const BATCH = 20;

/**
 * Verifies open provider attempts again in the background, every PROVIDER_CHECK_INTERVAL_MS: a customer who never
 * came back, or a verify the provider did not answer, still ends paid or failed. Each attempt is claimed (pushed
 * to its next check) in the statement that picks it, so several instances never verify one twice at once.
 */
export class ProviderAttemptScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ProviderAttemptScheduler');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly payments: ProviderPayments,
    private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(
          () => undefined,
          (error: unknown) => this.logger.error({ err: error }, 'provider attempt check failed; retrying at the next interval'),
        )
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.intervalMs);
  }
}
