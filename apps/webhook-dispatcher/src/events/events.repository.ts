import type { SqlStatement } from '@payments/database';
import type { WebhookScheme } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import type { EndpointRow } from '../shared/endpoint-row';
import type { WebhooksDatabase } from '../shared/webhooks-database';

export interface StoredEvent {
  id: string;
  merchantId: string;
  environment: 'live' | 'test';
  type: string;
  aggregateId: string;
  sequence: number;
  occurredAt: string | Date;
  scheme: WebhookScheme;
  body: string;
  /** Set only for a test event: it belongs to that endpoint and is never replayed. */
  endpointId?: string | null;
  /** The trace the event arrived in (JSON of traceparent/tracestate), while tracing is on: its attempts join it. */
  traceContext?: string | null;
}

/** Public events as received, with the body merchants get; kept for resends and replays. */
export class EventsRepository {
  constructor(private readonly db: WebhooksDatabase) {}

  /** Stores an event; false when it was already there. */
  async insert(manager: EntityManager, event: StoredEvent): Promise<boolean> {
    const { text, params } = this.insertStatement(event);
    const rows = (await manager.query(text, params as unknown[])) as unknown[];
    return rows.length > 0;
  }

  /** The insert as a statement: returns the event's id, or no row when it was already there. */
  insertStatement(event: StoredEvent): SqlStatement {
    return {
      text: `INSERT INTO ${this.db.table('events')}
         (id, merchant_id, environment, type, aggregate_id, sequence, occurred_at, scheme, body, endpoint_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      params: [
        event.id,
        event.merchantId,
        event.environment,
        event.type,
        event.aggregateId,
        event.sequence,
        event.occurredAt,
        event.scheme,
        event.body,
        event.endpointId ?? null,
      ],
    };
  }

  /** Ids of the endpoint's events (its merchant, environment and type filter) that occurred in [from, to). */
  async idsInRange(manager: EntityManager, endpoint: EndpointRow, from: Date, to: Date): Promise<string[]> {
    const rows = (await manager.query(
      `SELECT ev.id FROM ${this.db.table('events')} ev
       WHERE ev.merchant_id = $1 AND ev.environment = $2 AND ev.endpoint_id IS NULL
         AND ev.occurred_at >= $3 AND ev.occurred_at < $4
         AND ($5::text[] IS NULL OR ev.type = ANY($5::text[]))
       ORDER BY ev.occurred_at, ev.id`,
      [endpoint.merchant_id, endpoint.environment, from, to, endpoint.events],
    )) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /**
   * Events of types an endpoint takes now (`endpoint.events`) and did not take before (`before`), occurred at or
   * after `since` (when the types were added), with no delivery to it.
   */
  async newlyTakenSince(manager: EntityManager, endpoint: Pick<EndpointRow, 'id' | 'merchant_id' | 'environment' | 'events'>, before: string[], since: Date): Promise<string[]> {
    const rows = (await manager.query(
      `SELECT ev.id FROM ${this.db.table('events')} ev
       WHERE ev.merchant_id = $1 AND ev.environment = $2 AND ev.endpoint_id IS NULL AND ev.occurred_at >= $3
         AND ($4::text[] IS NULL OR ev.type = ANY($4::text[])) AND NOT ev.type = ANY($5::text[])
         AND NOT EXISTS (SELECT 1 FROM ${this.db.table('deliveries')} d WHERE d.event_id = ev.id AND d.endpoint_id = $6)
       ORDER BY ev.occurred_at, ev.id`,
      [endpoint.merchant_id, endpoint.environment, since, endpoint.events, before, endpoint.id],
    )) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /**
   * What an endpoint missed while inactive, to replay when it is enabled again: events it takes that have no
   * succeeded or pending delivery to it, and either arrived since `since` (and occurred at or after its creation,
   * as a first send would have required) or had a delivery to it fail since then.
   */
  async missedSince(manager: EntityManager, endpoint: EndpointRow, since: Date): Promise<string[]> {
    const rows = (await manager.query(
      `SELECT ev.id FROM ${this.db.table('events')} ev
       WHERE ev.merchant_id = $1 AND ev.environment = $2 AND ev.endpoint_id IS NULL
         AND ($4::text[] IS NULL OR ev.type = ANY($4::text[]))
         AND NOT EXISTS (
           SELECT 1 FROM ${this.db.table('deliveries')} d
           WHERE d.event_id = ev.id AND d.endpoint_id = $5 AND d.status IN ('succeeded', 'pending'))
         AND ((ev.received_at >= $3
               AND ev.occurred_at >= (SELECT ep.created_at FROM ${this.db.table('endpoints')} ep WHERE ep.id = $5))
           OR EXISTS (
             SELECT 1 FROM ${this.db.table('deliveries')} d
             WHERE d.event_id = ev.id AND d.endpoint_id = $5 AND d.status = 'failed' AND d.finished_at >= $3))
       ORDER BY ev.occurred_at, ev.id`,
      [endpoint.merchant_id, endpoint.environment, since, endpoint.events, endpoint.id],
    )) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /** Deletes events older than the retention whose deliveries are all finished (their deliveries and attempts go too). */
  async prune(retentionDays: number, chunk = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = (await this.db.dataSource.query(
        `DELETE FROM ${this.db.table('events')} WHERE id IN (
           SELECT ev.id FROM ${this.db.table('events')} ev
           WHERE ev.received_at < now() - $1::float8 * interval '1 day'
             AND NOT EXISTS (SELECT 1 FROM ${this.db.table('deliveries')} d WHERE d.event_id = ev.id AND d.status = 'pending')
           ORDER BY ev.received_at LIMIT $2
           FOR UPDATE SKIP LOCKED)`,
        [retentionDays, chunk],
      )) as [unknown[], number];
      total += result[1];
      if (result[1] < chunk) return total;
    }
  }
}
