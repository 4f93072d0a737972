import { Logger } from '@nestjs/common';
import { STREAMS, topicName } from '@payments/events';
import { OutboxWriter, qualified } from '@payments/messaging';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { SessionsConfig } from '../config';
import { isConcurrencyError } from '../event-store/concurrency.error';
import { EventStore } from '../event-store/event-store';
import { commandConflicts } from './sessions-metrics';

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
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction((manager) => work(manager));
      } catch (error) {
        if (!isRetryable(error) || attempt >= MAX_ATTEMPTS) throw error;
        commandConflicts.inc();
        this.logger.debug({ attempt, reason: (error as Error).message }, 'command lost a race; retrying');
        // A little random wait so two retrying commands do not collide again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * attempt)));
      }
    }
  }
}

function isRetryable(error: unknown): boolean {
  if (isConcurrencyError(error)) return true;
  // deadlock_detected: the lock order makes it unexpected, but the right answer to one is the same retry.
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01';
}
