import { STREAMS, topicName } from '@payments/events';
import { qualified } from '@payments/database';
import { OutboxWriter } from '@payments/messaging';
import type { DataSource } from 'typeorm';
import type { SessionsConfig } from '../config';
import { EventStore } from '../event-store/event-store';

/** The sessions schema: its data source, event store, outbox and the topic its public events go to. */
export class SessionsDatabase {
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
}
