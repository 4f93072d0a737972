import { executePrepared, executePreparedIn, placeholdersShifted, type SqlStatement } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';

const PRUNE_CHUNK = 5000;

/** One consumer's rows in a schema's inbox: the events it already handled. */
export class InboxStore {
  /** `table` is a checked, qualified name (`qualified(schema, 'inbox')`). */
  constructor(
    private readonly table: string,
    private readonly consumer: string,
  ) {}

  /**
   * Records `eventIds` inside the caller's transaction with one statement and returns the ids that were not
   * there yet. An id given twice (the same event delivered twice in one batch) comes back once.
   */
  async claim(manager: EntityManager, eventIds: readonly string[]): Promise<Set<string>> {
    // Named: every consumer transaction runs it, and its text never changes.
    const rows = (await executePreparedIn(manager, {
      text: this.claimSql(),
      params: [this.consumer, eventIds],
    })) as Array<{ event_id: string }>;
    return new Set(rows.map((row) => row.event_id));
  }

  /**
   * Records `eventIds` and makes `writes` (see ClaimedWrites: CTEs reading `claimed`) in one statement, outside
   * any transaction; returns the ids that were not there yet, whose writes were made.
   */
  async claimWith(dataSource: DataSource, eventIds: readonly string[], writes: SqlStatement | null): Promise<Set<string>> {
    const [row] = (await executePrepared(dataSource, {
      text: `WITH claimed AS (${this.claimSql()})${writes ? `, ${placeholdersShifted(writes.text, 2)}` : ''}
       SELECT coalesce(array_agg(event_id), '{}') AS claimed FROM claimed`,
      params: [this.consumer, eventIds, ...(writes?.params ?? [])],
    })) as [{ claimed: string[] }];
    return new Set(row.claimed);
  }

  private claimSql(): string {
    return `INSERT INTO ${this.table} (consumer, event_id) SELECT $1, unnest($2::text[])
       ON CONFLICT DO NOTHING RETURNING event_id`;
  }

  /**
   * Deletes rows handled more than `retentionDays` ago, oldest first in chunks, through the
   * (consumer, handled_at) index; returns how many went. Rows another instance is deleting at the same time
   * are skipped, not waited for.
   */
  async prune(dataSource: DataSource, retentionDays: number): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ deleted }] = (await dataSource.query(inboxPruneSql(this.table), [this.consumer, retentionDays])) as Array<{
        deleted: number;
      }>;
      total += deleted;
      if (deleted < PRUNE_CHUNK) return total;
    }
  }
}

/**
 * One chunk of pruning ($1 consumer, $2 retention in days): the oldest rows found through the
 * (consumer, handled_at) index, deleted by their physical address; returns `deleted`.
 */
export function inboxPruneSql(table: string): string {
  return `WITH gone AS (
      DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${table}
        WHERE consumer = $1 AND handled_at < now() - $2::float8 * interval '1 day'
        ORDER BY handled_at LIMIT ${PRUNE_CHUNK}
        FOR UPDATE SKIP LOCKED))
      RETURNING 1)
    SELECT count(*)::int AS deleted FROM gone`;
}
