import type { DataSource } from 'typeorm';
import type { InboxStore } from './inbox.store';
import { errorMessage, type MessagingLogger } from './messaging.logger';
import { sleep } from './wakeup';

/**
 * Deletes a consumer's inbox rows older than the retention, every interval (spread out, so instances started
 * together do not prune together). Rows must outlive any redelivery, which is why the retention is in days.
 */
export class InboxPruner {
  constructor(
    private readonly inbox: InboxStore,
    private readonly dataSource: DataSource,
    private readonly options: { intervalMs: number; retentionDays: number; consumerName: string },
    private readonly logger: MessagingLogger,
  ) {
    if (!(options.retentionDays > 0)) throw new Error('prune.retentionDays must be positive');
  }

  /** Deletes rows handled more than `retentionDays` ago; returns how many went. */
  async prune(retentionDays = this.options.retentionDays): Promise<number> {
    if (!(retentionDays > 0)) throw new Error('retentionDays must be positive');
    return this.inbox.prune(this.dataSource, retentionDays);
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const consumer = this.options.consumerName;
    while (!signal.aborted) {
      await sleep(this.options.intervalMs * (0.5 + Math.random() / 2), signal);
      if (signal.aborted) return;
      try {
        const deleted = await this.prune();
        if (deleted > 0) this.logger.info({ consumer, deleted }, 'pruned old inbox rows');
      } catch (error) {
        this.logger.error({ err: error, consumer }, `inbox pruning failed; trying again next interval: ${errorMessage(error)}`);
      }
    }
  }
}
