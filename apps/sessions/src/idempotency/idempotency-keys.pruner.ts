import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SessionsConfig } from '../config';
import { Clock } from '../shared/clock';
import { SessionsDatabase } from '../shared/sessions-database';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

const PRUNE_EVERY_MS = 10 * 60_000;
const BATCH = 5000;

/**
 * Deletes idempotency claims past the retention (IDEMPOTENCY_TTL_SECONDS), so the table holds about a day of
 * keys instead of growing for ever. A claim past the retention already counts for nothing (a create takes the
 * key over); this only reclaims the space. Every instance prunes; they only ever delete the same rows.
 */
@Injectable()
export class IdempotencyKeysPruner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IdempotencyKeysPruner');
  private readonly keys: IdempotencyKeysRepository;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: SessionsDatabase,
    private readonly config: SessionsConfig,
    private readonly clock: Clock,
  ) {
    this.keys = new IdempotencyKeysRepository(db.schema);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Deletes every claim past the retention, in batches; answers how many went. Failures are logged and retried next time. */
  async prune(): Promise<number> {
    const expiredBefore = new Date(this.clock.now().getTime() - this.config.IDEMPOTENCY_TTL_SECONDS * 1000);
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.keys.pruneExpired(this.db.dataSource.manager, expiredBefore, BATCH);
        total += deleted;
        if (deleted < BATCH) break;
      }
      if (total > 0) this.logger.log({ deleted: total }, 'pruned idempotency keys past the retention');
    } catch (error) {
      this.logger.error({ err: error, deleted: total }, 'pruning idempotency keys failed; trying again next interval');
    }
    return total;
  }
}
