import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EventsRepository } from '../events/events.repository';

const INTERVAL_MS = 60 * 60 * 1000;

/**
 * Hourly: events older than the retention (30 days) go, with their finished deliveries and attempts; and the
 * results of commands done once by id (pruneCommandResults) once no retry can come any more.
 */
export class RetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly events: EventsRepository,
    private readonly retentionDays: number,
    private readonly pruneCommandResults: () => Promise<number> = async () => 0,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = Promise.all([this.events.prune(this.retentionDays), this.pruneCommandResults()])
        .then(([deleted]) => deleted)
        .then(
          (deleted) => {
            if (deleted > 0) this.logger.log({ deleted, retentionDays: this.retentionDays }, 'old events pruned');
          },
          (error: unknown) => this.logger.error({ err: error }, 'pruning old events failed; retrying in an hour'),
        )
        .finally(() => {
          this.running = undefined;
        });
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
