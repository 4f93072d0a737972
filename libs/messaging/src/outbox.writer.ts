import { validateEnvelope, type EventEnvelope } from '@payments/events';
import type { EntityManager } from 'typeorm';
import { signalOutboxWrite } from './outbox.signal';
import { assertSchemaName, qualified } from './sql-names';

const ROWS_PER_INSERT = 1000;

/** Kafka headers every outbox message carries (strings, so any client can read them). */
export function envelopeHeaders(envelope: EventEnvelope<unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    'event-id': envelope.id,
    'event-type': envelope.type,
    'schema-version': String(envelope.schema_version),
    'correlation-id': envelope.correlation_id,
    'content-type': 'application/json',
  };
  if (envelope.causation_id !== null) headers['causation-id'] = envelope.causation_id;
  return headers;
}

export interface OutboxWriterOptions {
  /** Schema holding the outbox; defaults to the one the manager's DataSource is configured with. */
  schema?: string;
}

/**
 * Appends events to the outbox inside the caller's transaction, so they are published if and only if the state
 * change they describe commits. Nothing here talks to Kafka.
 */
export class OutboxWriter {
  constructor(private readonly options: OutboxWriterOptions = {}) {
    if (options.schema !== undefined) assertSchemaName(options.schema);
  }

  async append(manager: EntityManager, topic: string, envelopes: ReadonlyArray<EventEnvelope<unknown>>): Promise<void> {
    if (envelopes.length === 0) return;
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error('OutboxWriter.append needs the EntityManager of an open transaction (dataSource.transaction)');
    }
    // Validation on produce: a bad event fails the business transaction instead of reaching consumers.
    for (const envelope of envelopes) validateEnvelope(envelope);

    const schema = this.options.schema ?? (manager.connection.options as { schema?: string }).schema ?? 'public';
    // Rows in envelope order (ids follow it); chunked to stay far below the 65535 bind parameters of a query.
    for (let start = 0; start < envelopes.length; start += ROWS_PER_INSERT) {
      const values: string[] = [];
      const params: unknown[] = [];
      for (const envelope of envelopes.slice(start, start + ROWS_PER_INSERT)) {
        const n = params.length;
        values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}::jsonb, $${n + 5}::jsonb)`);
        params.push(envelope.id, topic, envelope.aggregate_id, JSON.stringify(envelope), JSON.stringify(envelopeHeaders(envelope)));
      }
      await manager.query(
        `INSERT INTO ${qualified(schema, 'outbox')} (event_id, topic, key, payload, headers) VALUES ${values.join(', ')}`,
        params,
      );
    }
    // Wakes the relay once this transaction commits, without waiting for its poll.
    await signalOutboxWrite(manager, schema);
  }
}
