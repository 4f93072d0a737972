import { validateEnvelope, type EventEnvelope } from '@payments/events';
import { tracingEnabled } from '@payments/tracing';
import type { DataSource, EntityManager } from 'typeorm';
import { outboxNotifyStatement, signalCommittedOutboxWrite, signalOutboxWrite } from './outbox.signal';
import { assertSchemaName, qualified } from '@payments/database';
import type { SqlStatement } from '@payments/database';
import { addOutboxTraceHeaders } from './message-tracing';

const ROWS_PER_INSERT = 1000;

/**
 * Set ('true') on an event whose `data.payment` names the customer wallet it was paid from: a consumer with nothing
 * to do for such a payment (the ledger posted it by command before the session succeeded) passes over it by this
 * header without reading the value or opening a transaction. Whether, never which wallet.
 */
export const WALLET_PAYMENT_HEADER = 'wallet-payment';

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
  const payment = (envelope.data as { payment?: { wallet_id?: unknown } } | null)?.payment;
  if (typeof payment?.wallet_id === 'string' && payment.wallet_id !== '') headers[WALLET_PAYMENT_HEADER] = 'true';
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
    const schema = this.options.schema ?? (manager.connection.options as { schema?: string }).schema ?? 'public';
    // Rows in envelope order (ids follow it); chunked to stay far below the 65535 bind parameters of a query.
    for (let start = 0; start < envelopes.length; start += ROWS_PER_INSERT) {
      const { text, params } = this.insertStatement(schema, topic, envelopes.slice(start, start + ROWS_PER_INSERT));
      await manager.query(text, params as unknown[]);
    }
    // Wakes the relay once this transaction commits, without waiting for its poll.
    await signalOutboxWrite(manager, schema);
  }

  /**
   * The outbox insert as a statement, for a write made of one combined statement (see combineStatements) rather
   * than a transaction; call committed() once it has run.
   */
  appendStatement(topic: string, envelopes: ReadonlyArray<EventEnvelope<unknown>>, options: { onlyIfRowsIn?: string; onlyKeysIn?: string } = {}): SqlStatement {
    if (this.options.schema === undefined) throw new Error('appendStatement needs the writer to know its schema');
    if (envelopes.length === 0 || envelopes.length > ROWS_PER_INSERT) throw new Error(`appendStatement takes 1..${ROWS_PER_INSERT} events`);
    return this.insertStatement(this.options.schema, topic, envelopes, options);
  }

  /** The most events one appendStatement takes. */
  static readonly maxEventsPerStatement = ROWS_PER_INSERT;

  /**
   * For a combined statement holding appendStatement: the NOTIFY to include in it when the relay runs in another
   * process (see outboxNotifyStatement), or undefined; tell committed() whether it was included.
   */
  notifyStatement(): SqlStatement | undefined {
    if (this.options.schema === undefined) throw new Error('notifyStatement needs the writer to know its schema');
    return outboxNotifyStatement(this.options.schema);
  }

  /**
   * After a committed appendStatement: wakes the relay (in process, or by NOTIFY when it runs elsewhere, unless the
   * statement itself carried the NOTIFY: `notified`).
   */
  async committed(dataSource: DataSource, notified = false): Promise<void> {
    if (this.options.schema === undefined) throw new Error('committed needs the writer to know its schema');
    await signalCommittedOutboxWrite(dataSource, this.options.schema, notified);
  }

  /** After an appendStatement ran inside the caller's open transaction: wakes the relay once that commits. */
  async committedIn(manager: EntityManager): Promise<void> {
    if (this.options.schema === undefined) throw new Error('committedIn needs the writer to know its schema');
    await signalOutboxWrite(manager, this.options.schema);
  }

  /**
   * `onlyIfRowsIn`: a CTE of the combined statement; the rows are written only when it returned any. `onlyKeysIn`:
   * a CTE returning `id`; only the events whose key (aggregate id) it returned are written.
   */
  private insertStatement(
    schema: string,
    topic: string,
    envelopes: ReadonlyArray<EventEnvelope<unknown>>,
    { onlyIfRowsIn, onlyKeysIn }: { onlyIfRowsIn?: string; onlyKeysIn?: string } = {},
  ): SqlStatement {
    // Validation on produce: a bad event fails the business write instead of reaching consumers.
    for (const envelope of envelopes) validateEnvelope(envelope);
    const values: string[] = [];
    const params: unknown[] = [];
    for (const envelope of envelopes) {
      const n = params.length;
      values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5})`);
      const headers = envelopeHeaders(envelope);
      // The trace this write belongs to, kept with the row: the relay publishes it later, from another context.
      if (tracingEnabled()) addOutboxTraceHeaders(headers, envelope);
      params.push(envelope.id, topic, envelope.aggregate_id, JSON.stringify(envelope), JSON.stringify(headers));
    }
    const into = `INSERT INTO ${qualified(schema, 'outbox')} (event_id, topic, key, payload, headers)`;
    // Every column is text, so the VALUES' untyped parameters need no casts in a subquery either.
    if (onlyIfRowsIn !== undefined) return { text: `${into} SELECT * FROM (VALUES ${values.join(', ')}) AS v WHERE EXISTS (SELECT 1 FROM ${onlyIfRowsIn})`, params };
    if (onlyKeysIn !== undefined) {
      return { text: `${into} SELECT * FROM (VALUES ${values.join(', ')}) AS v (event_id, topic, key, payload, headers) WHERE v.key IN (SELECT id FROM ${onlyKeysIn})`, params };
    }
    return { text: `${into} VALUES ${values.join(', ')}`, params };
  }
}
