import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ServiceConfig } from '@payments/config';
import { executePrepared, qualified } from '@payments/database';
import { DataSource } from 'typeorm';

/** Tables smaller than this many pages (128 KiB) are never analyzed here: any plan is cheap on them. */
const MIN_PAGES = 16;
/** A table is analyzed again once it holds this many times the pages its statistics describe. */
const GROWTH_FACTOR = 4;
const CHECK_EVERY_MS = 10_000;

/**
 * ANALYZEs the tables of `schema` that have grown well past what their planner statistics describe, and returns
 * their names. Why: the hot writes are prepared statements, and Postgres keeps a prepared statement's generic
 * plan until the table's statistics change. A plan made while a new deployment's tables held a page or two
 * (sequential scans are cheapest there) stays in use as they grow, until autovacuum's first ANALYZE, which can
 * take minutes (measured: the webhook claim scanned every delivery, 2.4 ms against 0.09 ms, at 4,000 rows).
 * The growth factor keeps this to a few ANALYZEs per table while it is young; autovacuum covers the rest.
 */
export async function analyzeGrownTables(dataSource: DataSource, schema: string): Promise<string[]> {
  // The schema's tables first, then their sizes: as one filter, Postgres sized every table of the database (each
  // size opens the table, waiting for any lock on it, another service's migration included), 8–18 ms a check
  // against 1–4 ms.
  // Named: every instance asks every 10 s, and unnamed it was planned each time (0.7 ms of Postgres' time).
  const grown = (await executePrepared(dataSource, {
    text: `WITH own AS MATERIALIZED (
       SELECT c.oid, c.relname, c.relpages FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r')
     SELECT relname AS name FROM own
     WHERE pg_relation_size(oid) / current_setting('block_size')::int >= greatest($2::int, $3::int * relpages)
     ORDER BY relname`,
    params: [schema, MIN_PAGES, GROWTH_FACTOR],
  })) as Array<{ name: string }>;
  for (const { name } of grown) await dataSource.query(`ANALYZE ${qualified(schema, name)}`);
  return grown.map((table) => table.name);
}

/** Runs analyzeGrownTables on the service's schema every 10 s. */
@Injectable()
export class TableStatisticsKeeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TableStatistics');
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private async check(): Promise<void> {
    if (this.running || !this.dataSource.isInitialized) return;
    this.running = true;
    try {
      const analyzed = await analyzeGrownTables(this.dataSource, this.config.DB_SCHEMA);
      if (analyzed.length > 0) this.logger.log({ schema: this.config.DB_SCHEMA, tables: analyzed }, 'statistics refreshed for grown tables');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not refresh table statistics; autovacuum still will');
    } finally {
      this.running = false;
    }
  }
}
