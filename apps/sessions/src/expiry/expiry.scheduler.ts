import { executePrepared } from '@payments/database';
import { randomBase62 } from '@payments/ids';
import { IntervalJob } from '@payments/platform';
import type { SessionsConfig } from '../config';
import type { Clock } from '../shared/clock';
import { expiredSessions, expiryFailures } from '../shared/sessions-metrics';
import type { SessionsDatabase } from '../shared/sessions-database';
import type { Expirer } from '../sessions.composition';

/** Rows one transaction locks and expires. */
export const EXPIRY_BATCH_SIZE = 200;

const KINDS = ['payment_intent', 'invoice'] as const;
type Kind = (typeof KINDS)[number];

export interface ExpiryRun {
  expired: number;
  failed: number;
}

/**
 * Expires intents and invoices whose expires_at has passed, every EXPIRY_INTERVAL_MS. Due rows are locked
 * `FOR UPDATE SKIP LOCKED` in the transaction that expires them, so with several instances each row is expired
 * by exactly one; all state is in Postgres, so a restart just continues. A row that fails is logged, counted and
 * set aside with a backoff (1 s, doubling, up to an hour): it is not locked again before then, so rows that keep
 * failing can neither stay first in line nor hold up the rest (they did: 200 of them filled every batch).
 */
export class ExpiryScheduler extends IntervalJob<ExpiryRun> {
  private readonly expirers: Record<Kind, Expirer>;
  /**
   * Whether any session of each kind is due, in one statement outside a transaction: most passes find none, and a
   * locking transaction per kind cost every instance six round trips a second on an idle system.
   */
  private readonly dueCheckText: string;

  constructor(
    private readonly db: SessionsDatabase,
    expirers: Record<Kind, Expirer>,
    config: SessionsConfig,
    private readonly clock: Clock,
  ) {
    super('ExpiryScheduler', config.EXPIRY_INTERVAL_MS);
    this.expirers = expirers;
    this.dueCheckText = `SELECT ${KINDS.map((kind) => `EXISTS (${expirers[kind].dueQuery}) AS ${kind}`).join(', ')}`;
  }

  protected override report(run: ExpiryRun): void {
    if (run.expired > 0 || run.failed > 0) this.logger.log(run, 'expiry run');
  }

  /** One pass: everything due now, batch after batch. */
  async runOnce(): Promise<ExpiryRun> {
    const total: ExpiryRun = { expired: 0, failed: 0 };
    const [due] = await executePrepared(this.db.dataSource, { text: this.dueCheckText, params: [this.clock.now()] });
    for (const kind of KINDS) {
      if (due?.[kind] !== true) continue;
      for (;;) {
        const batch = await this.expireBatch(kind);
        total.expired += batch.expired;
        total.failed += batch.failed;
        // A short batch means nothing more is due (or the rest is locked by another instance).
        if (batch.locked < EXPIRY_BATCH_SIZE || this.stopped) break;
      }
    }
    return total;
  }

  private async expireBatch(kind: Kind): Promise<ExpiryRun & { locked: number }> {
    const expirer = this.expirers[kind];
    const correlationId = `expiry_${randomBase62()}`;
    const result = await this.db.dataSource.transaction(async (manager) => {
      const now = this.clock.now();
      const due = await expirer.lockDue(manager, now, EXPIRY_BATCH_SIZE);
      const run = { expired: 0, failed: 0, locked: due.length };
      for (const session of due) {
        // A savepoint per row: one that fails rolls back alone and the batch goes on.
        await manager.query('SAVEPOINT expire_one');
        try {
          if (await expirer.expireLocked(manager, session, now, correlationId)) run.expired += 1;
          await manager.query('RELEASE SAVEPOINT expire_one');
        } catch (error) {
          await manager.query('ROLLBACK TO SAVEPOINT expire_one');
          run.failed += 1;
          expiryFailures.inc({ kind });
          const failures = await expirer.setAsideExpiry(manager, session, now);
          this.logger.error({ err: error, kind, id: session.id, failures }, 'could not expire; set aside and tried again later');
        }
      }
      return run;
    });
    if (result.expired > 0) expiredSessions.inc({ kind }, result.expired);
    return result;
  }
}
