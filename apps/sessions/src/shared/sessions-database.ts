import { Logger } from '@nestjs/common';
import { STREAMS, topicName } from '@payments/events';
import { combineStatements, executePrepared, OutboxWriter, qualified, type SqlStatement } from '@payments/messaging';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { SessionsConfig } from '../config';
import { isConcurrencyError } from '../event-store/concurrency.error';
import { EventStore, isStreamVersionClash } from '../event-store/event-store';
import { commandConflicts } from './sessions-metrics';

/** What a command decided, as statements: the read model's versioned update, then the other writes. */
export interface ChangeStatements {
  /** An UPDATE … RETURNING of the read-model row, guarded by the version the command read. */
  readonly readModelUpdate: SqlStatement;
  /** Events, payment, outbox rows. */
  readonly rest: readonly SqlStatement[];
}

/** Attempts of one command before a conflict reaches the caller (each one re-reads and re-decides). */
const MAX_ATTEMPTS = 6;

/**
 * The sessions schema as the use cases see it: one transaction per command, in which the events, the read
 * models and the outbox rows are written together. A command that lost a race (ConcurrencyError) is run again
 * from its first read.
 */
export class SessionsDatabase {
  private readonly logger = new Logger('SessionsDatabase');
  readonly schema: string;
  readonly events: EventStore;
  readonly outbox: OutboxWriter;
  /** Where every public event of intents and invoices goes. */
  readonly eventsTopic: string;

  constructor(
    readonly dataSource: DataSource,
    config: Pick<SessionsConfig, 'DB_SCHEMA' | 'KAFKA_NAMESPACE'>,
  ) {
    this.schema = config.DB_SCHEMA;
    this.events = new EventStore(this.schema);
    this.outbox = new OutboxWriter({ schema: this.schema });
    this.eventsTopic = topicName(config.KAFKA_NAMESPACE, STREAMS.sessions);
  }

  table(name: string): string {
    return qualified(this.schema, name);
  }

  /** Runs `work` in a transaction; retried from scratch when it lost a race with another command. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.retrying(() => this.dataSource.transaction((manager) => work(manager)));
  }

  /** Runs `attempt` again (from its first read) while it loses races with other commands, up to MAX_ATTEMPTS. */
  async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (!isRetryable(error) || n >= MAX_ATTEMPTS) throw error;
        commandConflicts.inc();
        this.logger.debug({ attempt: n, reason: (error as Error).message }, 'command lost a race; retrying');
        // A little random wait so two retrying commands do not collide again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * n)));
      }
    }
  }

  /**
   * Writes what a command decided as one combined statement: one round trip, atomic without BEGIN/COMMIT.
   * The read model's update runs first, as the statement's main query reads it: it takes the row lock before
   * any event is appended, the order the expiry job's transactions also follow, so the two never deadlock. A
   * command that read a stale version appends at a (stream, version) already taken, and the whole statement
   * fails with a version clash (`retrying` runs the command again).
   */
  async writeChange(change: ChangeStatements): Promise<void> {
    await executePrepared(this.dataSource, combined(change));
    await this.outbox.committed(this.dataSource);
  }

  /** The same write inside the caller's open transaction (the expiry job's, which holds the row lock already). */
  async writeChangeIn(manager: EntityManager, change: ChangeStatements): Promise<void> {
    const { text, params } = combined(change);
    await manager.query(text, params as unknown[]);
    await this.outbox.committedIn(manager);
  }
}

/** The update as CTE s1, read by the main query so that it runs before the others (which run after it). */
function combined({ readModelUpdate, rest }: ChangeStatements): SqlStatement {
  return combineStatements([readModelUpdate, ...rest, { text: 'SELECT count(*)::int AS updated FROM s1', params: [] }]);
}

function isRetryable(error: unknown): boolean {
  if (isConcurrencyError(error) || isStreamVersionClash(error)) return true;
  // deadlock_detected: the lock order makes it unexpected, but the right answer to one is the same retry.
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01';
}
