import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { randomBase62 } from '@payments/ids';
import { executePrepared, executePreparedIn, type SqlStatement } from '@payments/database';
import type { WebhookScheme } from '@payments/webhooks';
import type { EntityManager } from 'typeorm';
import { activeEndpointSql, type EndpointRow } from '../shared/endpoint-row';
import type { WebhooksDatabase } from '../shared/webhooks-database';
import type { StoredEvent } from '../events/events.repository';

export type DeliveryKind = 'first' | 'resend' | 'replay' | 'test';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export function newDeliveryId(): string {
  return `wd_${randomBase62()}`;
}

/** A delivery this instance holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  kind: DeliveryKind;
  /** Attempts made before this one. */
  attemptCount: number;
  endpoint: Pick<
    EndpointRow,
    | 'id'
    | 'merchant_id'
    | 'environment'
    | 'url'
    | 'status'
    | 'deleted_at'
    | 'auto_disabled_at'
    | 'secret_encrypted'
    | 'previous_secret_encrypted'
    | 'previous_secret_expires_at'
  >;
  /** `traceContext`: the trace the event arrived in (JSON of traceparent/tracestate), which each attempt joins. */
  event: { id: string; type: string; scheme: WebhookScheme; body: string; traceContext?: string | null };
  /** Its endpoint was failing when claimed (it gets fewer slots). */
  degraded: boolean;
}

export interface ClaimRequest {
  /** Most deliveries to claim. */
  limit: number;
  /** Slots this instance gives a healthy endpoint. */
  perEndpoint: number;
  /** Slots it gives an endpoint whose last attempts failed (failing_since set): a dead endpoint holds one. */
  degradedPerEndpoint: number;
  /** Slots left for failing endpoints all together (0 = claim none of theirs now). */
  degradedFree: number;
  /** Endpoints with attempts in flight here, and how many slots each has left (0 = skip it). */
  busy: ReadonlyMap<string, number>;
  leaseMs: number;
}

/** What one attempt did to its delivery. */
export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** The delivery after it: still pending (with the next attempt's time) or finished. */
  next: { status: 'pending'; nextAttemptAt: Date } | { status: 'succeeded' } | { status: 'failed'; reason: string };
}

/** A successful attempt to record. */
export interface Success {
  claimed: ClaimedDelivery;
  record: AttemptRecord;
  healthCounts: boolean;
}

interface ClaimRow {
  id: string;
  kind: DeliveryKind;
  attempt_count: number;
  endpoint_id: string;
  merchant_id: string;
  environment: 'live' | 'test';
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  deleted_at: Date | null;
  auto_disabled_at: Date | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  event_type: string;
  scheme: WebhookScheme;
  body: string;
  trace_context: string | null;
  degraded: boolean;
}

/** Candidates looked at per claim, per slot asked for: room for endpoints whose slots are full. */
const SCAN_FACTOR = 4;

/**
 * The claim (parameters as `claim` passes them). Due deliveries come from two places: the shared index of
 * deliveries not held, oldest first, skipping endpoints with no free slot; and, for each failing endpoint with a
 * free slot, the oldest of its held ones (an index probe each, however long its backlog). Then each endpoint's
 * slots and the failing endpoints' share are applied. Candidates are read without locks (locking every scanned
 * row cost more than the rest of the claim); only what is taken is locked, skipping rows another instance holds,
 * and checked again once locked.
 */
export function claimSql(t: (table: string) => string): string {
  return `WITH candidates AS (
         (SELECT d.id, d.endpoint_id, d.next_attempt_at, (ep.failing_since IS NOT NULL) AS degraded
          FROM ${t('deliveries')} d JOIN ${t('endpoints')} ep ON ep.id = d.endpoint_id
          WHERE d.status = 'pending' AND NOT d.held AND d.next_attempt_at <= now()
            AND (d.locked_until IS NULL OR d.locked_until < now())
            AND NOT (d.endpoint_id = ANY($1::text[]))
            AND ($9::int > 0 OR ep.failing_since IS NULL)
          ORDER BY d.next_attempt_at
          LIMIT $2)
         UNION ALL
         (SELECT h.id, ep.id, h.next_attempt_at, true
          FROM ${t('endpoints')} ep
          CROSS JOIN LATERAL (
            SELECT d.id, d.next_attempt_at FROM ${t('deliveries')} d
            WHERE d.endpoint_id = ep.id AND d.status = 'pending' AND d.held AND d.next_attempt_at <= now()
              AND (d.locked_until IS NULL OR d.locked_until < now())
            ORDER BY d.next_attempt_at
            LIMIT $10
          ) h
          WHERE $9::int > 0 AND ep.failing_since IS NOT NULL AND NOT (ep.id = ANY($1::text[])))
       ), ranked AS (
         SELECT c.id, c.next_attempt_at, c.degraded,
                row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rank,
                COALESCE(busy.free, CASE WHEN c.degraded THEN $10::int ELSE $3::int END) AS free
         FROM candidates c
         LEFT JOIN unnest($4::text[], $5::int[]) AS busy(endpoint_id, free) ON busy.endpoint_id = c.endpoint_id
       ), eligible AS (
         SELECT id, next_attempt_at, degraded,
                sum(CASE WHEN degraded THEN 1 ELSE 0 END) OVER (ORDER BY next_attempt_at, id) AS degraded_seq
         FROM ranked WHERE rank <= free
       ), chosen AS (
         SELECT id FROM eligible WHERE NOT degraded OR degraded_seq <= $9::int ORDER BY next_attempt_at LIMIT $6
       ), locked AS (
         SELECT d.id FROM ${t('deliveries')} d
         WHERE d.id = ANY(ARRAY(SELECT id FROM chosen)) AND d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until < now())
         FOR UPDATE SKIP LOCKED
       )
       UPDATE ${t('deliveries')} d
       SET locked_until = now() + $7::int * interval '1 millisecond', lease_token = $8
       FROM locked, ${t('endpoints')} ep, ${t('events')} ev
       WHERE d.id = locked.id AND ep.id = d.endpoint_id AND ev.id = d.event_id
       RETURNING d.id, d.kind, d.attempt_count, ep.id AS endpoint_id, ep.merchant_id, ep.environment, ep.url,
                 ep.status AS endpoint_status, ep.deleted_at, ep.auto_disabled_at, ep.secret_encrypted,
                 ep.previous_secret_encrypted, ep.previous_secret_expires_at, (ep.failing_since IS NOT NULL) AS degraded,
                 ev.id AS event_id, ev.type AS event_type, ev.scheme, ev.body, ev.trace_context`;
}

/**
 * DeliveriesRepository.releaseRecovered's statement (exported so a test can read its plan). With `andLook`, it
 * also answers whether any delivery is pending at all (`released`, `pending`): the delivery worker's idle check.
 */
export function releaseRecoveredSql(t: (table: string) => string, andLook = false): string {
  const found = `WITH RECURSIVE holding(endpoint_id) AS (
         (SELECT endpoint_id FROM ${t('deliveries')} WHERE status = 'pending' AND held ORDER BY endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.endpoint_id FROM ${t('deliveries')} d
                 WHERE d.status = 'pending' AND d.held AND d.endpoint_id > h.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
         FROM holding h WHERE h.endpoint_id IS NOT NULL
       ), recovered AS (
         SELECT ep.id FROM holding h JOIN ${t('endpoints')} ep ON ep.id = h.endpoint_id WHERE ep.failing_since IS NULL
       )`;
  const release = `UPDATE ${t('deliveries')} SET held = false
       WHERE id = ANY(ARRAY(
         SELECT d.id FROM ${t('deliveries')} d
         WHERE d.endpoint_id IN (SELECT id FROM recovered) AND d.status = 'pending' AND d.held
         FOR UPDATE SKIP LOCKED))`;
  if (!andLook) return `${found}
       ${release}`;
  return `${found}, released AS (
       ${release}
       RETURNING 1)
       SELECT (SELECT count(*) FROM released)::int AS released,
              EXISTS (SELECT 1 FROM ${t('deliveries')} WHERE status = 'pending') AS pending`;
}

/** Deliveries and attempts: scheduling, claiming with a lease, recording what each attempt did. */
export class DeliveriesRepository {
  private readonly logger = new Logger('DeliveriesRepository');

  constructor(private readonly db: WebhooksDatabase) {}

  /**
   * Claims due deliveries for this instance: rows are locked `FOR UPDATE SKIP LOCKED` while the lease is set, so
   * two instances never claim the same one, and a claimed row is not due again until its lease ends (the owner
   * renews it while the attempt runs, renewLeases; a crashed instance's claims come back within WEBHOOK_LEASE_MS
   * of its last renewal). Endpoints with no free slot here are skipped in the
   * scan itself, so a slow endpoint's backlog never hides the deliveries of the others; failing endpoints get
   * fewer slots, and together only a share of the instance's, so many dead endpoints cannot fill it either.
   */
  async claim(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (request.limit <= 0) return [];
    const full = [...request.busy].filter(([, free]) => free <= 0).map(([id]) => id);
    const partial = [...request.busy].filter(([, free]) => free > 0);
    const leaseToken = randomUUID();
    const t = (name: string) => this.db.table(name);
    const returned = (await executePrepared(this.db.dataSource, {
      text: claimSql(t),
      params: [
        full,
        request.limit * SCAN_FACTOR,
        request.perEndpoint,
        partial.map(([id]) => id),
        partial.map(([, free]) => free),
        request.limit,
        request.leaseMs,
        leaseToken,
        request.degradedFree,
        request.degradedPerEndpoint,
      ],
    })) as unknown as ClaimRow[];
    return returned.map((row) => ({
      id: row.id,
      leaseToken,
      kind: row.kind,
      attemptCount: row.attempt_count,
      endpoint: {
        id: row.endpoint_id,
        merchant_id: row.merchant_id,
        environment: row.environment,
        url: row.url,
        status: row.endpoint_status,
        deleted_at: row.deleted_at,
        auto_disabled_at: row.auto_disabled_at,
        secret_encrypted: row.secret_encrypted,
        previous_secret_encrypted: row.previous_secret_encrypted,
        previous_secret_expires_at: row.previous_secret_expires_at,
      },
      event: { id: row.event_id, type: row.event_type, scheme: row.scheme, body: row.body, traceContext: row.trace_context },
      degraded: row.degraded,
    }));
  }

  /**
   * Extends the leases this instance still holds (each delivery with the token it was claimed under, looked up by
   * key): one statement per renewal tick, whatever the number of attempts in flight. A delivery another instance
   * took over has a new token and is left alone; so is one finished meanwhile. Rows another transaction holds right
   * now (an attempt being recorded, an endpoint's deliveries being held) are skipped rather than waited for, so a
   * renewal never waits in a lock queue nor deadlocks with a batch of recorded successes; a skipped lease is asked
   * for again at the next tick. Answers the deliveries renewed.
   */
  async renewLeases(deliveryIds: readonly string[], leaseTokens: readonly string[], leaseMs: number): Promise<string[]> {
    if (deliveryIds.length === 0) return [];
    const t = (name: string) => this.db.table(name);
    const rows = await executePrepared(this.db.dataSource, {
      text: `UPDATE ${t('deliveries')} SET locked_until = now() + $3::int * interval '1 millisecond'
             WHERE id = ANY(ARRAY(
               SELECT d.id FROM ${t('deliveries')} d JOIN unnest($1::text[], $2::text[]) AS h(id, lease_token)
                 ON d.id = h.id AND d.lease_token = h.lease_token
               WHERE d.status = 'pending'
               FOR UPDATE OF d SKIP LOCKED))
             RETURNING id`,
      params: [deliveryIds, leaseTokens, leaseMs],
    });
    return rows.map((row) => row.id as string);
  }

  /**
   * Stores the attempt and moves the delivery on, if this instance still holds its lease (false otherwise: the
   * attempt is kept as history, the delivery's state is left to whoever holds it now).
   */
  async recordAttempt(manager: EntityManager, claimed: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    const next = record.next;
    const rows = (await manager.query(
      `WITH attempt AS (${this.insertAttemptSql()})
       UPDATE ${this.db.table('deliveries')}
       SET attempt_count = attempt_count + 1, status = $9, next_attempt_at = $8, locked_until = NULL, lease_token = NULL,
           finished_at = CASE WHEN $9 = 'pending' THEN NULL ELSE $3::timestamptz END, failure_reason = $11
       WHERE id = $1 AND lease_token = $10 AND status = 'pending'
       RETURNING id`,
      [...this.attemptValues(claimed, record), next.status, claimed.leaseToken, next.status === 'failed' ? next.reason : null],
    )) as [unknown[], number];
    return rows[1] > 0;
  }

  /**
   * Successful attempts in one statement: each stored, its delivery ended if this instance still holds the lease,
   * and, when `healthCounts`, its endpoint's failing streak ended. Answers, per success, whether its lease still
   * held (if not, the attempt is kept as history only).
   */
  async recordSuccesses(successes: readonly Success[]): Promise<boolean[]> {
    const column = <T>(value: (success: Success) => T) => successes.map(value);
    const rows = (await executePrepared(this.db.dataSource, {
      text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::boolean[])
           AS i(delivery_id, attempt_number, attempted_at, status_code, latency_ms, response_excerpt, error, lease_token, health_counts)
       ), attempt AS (
         INSERT INTO ${this.db.table('attempts')}
           (delivery_id, attempt_number, attempted_at, status_code, latency_ms, response_excerpt, error, next_attempt_at)
         SELECT delivery_id, attempt_number, attempted_at, status_code, latency_ms, response_excerpt, error, NULL FROM input
       ), delivery AS (
         UPDATE ${this.db.table('deliveries')} d
         SET attempt_count = d.attempt_count + 1, status = 'succeeded', next_attempt_at = NULL, locked_until = NULL,
             lease_token = NULL, finished_at = i.attempted_at, failure_reason = NULL
         FROM input i
         WHERE d.id = i.delivery_id AND d.lease_token = i.lease_token AND d.status = 'pending'
         RETURNING d.id, d.endpoint_id, i.health_counts
       ), healthy AS (
         UPDATE ${this.db.table('endpoints')} SET failing_since = NULL
         WHERE failing_since IS NOT NULL AND id IN (SELECT endpoint_id FROM delivery WHERE health_counts)
         RETURNING id
       )
       SELECT id, false AS recovered FROM delivery UNION ALL SELECT id, true FROM healthy`,
      params: [
        column((s) => s.claimed.id),
        column((s) => s.claimed.attemptCount + 1),
        column((s) => s.record.attemptedAt),
        column((s) => s.record.statusCode),
        column((s) => s.record.latencyMs),
        column((s) => s.record.responseExcerpt),
        column((s) => s.record.error),
        column((s) => s.claimed.leaseToken),
        column((s) => s.healthCounts),
      ],
    })) as Array<{ id: string; recovered: boolean }>;
    const recovered = rows.filter((row) => row.recovered).map((row) => row.id);
    // After the commit, on its own: inside the statement it would wait for rows other attempts hold while holding
    // the endpoint, which they may be waiting for. If it fails, the periodic release catches up.
    if (recovered.length > 0) {
      await this.releaseHeld(recovered).catch((error: unknown) =>
        this.logger.warn({ err: error, endpoints: recovered }, 'releasing held deliveries failed; the periodic release will'),
      );
    }
    const kept = new Set(rows.filter((row) => !row.recovered).map((row) => row.id));
    return successes.map((s) => kept.has(s.claimed.id));
  }

  /**
   * Holds the pending deliveries of an endpoint that is failing (in the transaction that recorded its failure,
   * which holds the endpoint's row): out of the shared queue, they wait in the endpoint's own. Rows another
   * transaction holds right now are left for the next failure (in the shared queue they are merely scanned).
   * `= ANY(ARRAY(...))` looks the rows up by key; as `IN (...)` the planner scanned the whole table (12 ms at 45,000
   * rows, measured).
   */
  async hold(manager: EntityManager, endpointId: string): Promise<void> {
    const t = (name: string) => this.db.table(name);
    await manager.query(
      `UPDATE ${t('deliveries')} SET held = true
       WHERE id = ANY(ARRAY(SELECT id FROM ${t('deliveries')} WHERE endpoint_id = $1 AND status = 'pending' AND NOT held FOR UPDATE SKIP LOCKED))`,
      [endpointId],
    );
  }

  /** Puts the held deliveries of endpoints that are healthy again back into the shared queue. */
  private async releaseHeld(endpointIds: readonly string[]): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE ${this.db.table('deliveries')} SET held = false WHERE endpoint_id = ANY($1::text[]) AND status = 'pending' AND held`,
      [endpointIds],
    );
  }

  /**
   * Releases held deliveries whose endpoint is not failing: after a crash between a recovery and its release, a
   * release that failed, or a delivery made held in the moment its endpoint recovered. Until then no claim takes
   * them (neither queue is theirs), so every instance runs this about every second. The endpoints with held
   * deliveries are found by a loose scan of their own index (one probe per such endpoint, however long a dead
   * endpoint's backlog); only a recovered endpoint's rows are read, and rows another transaction holds are left
   * for the next pass rather than waited for.
   */
  async releaseRecovered(): Promise<number> {
    const result = (await this.db.dataSource.query(releaseRecoveredSql((name) => this.db.table(name)))) as [unknown[], number];
    return result[1];
  }

  /**
   * releaseRecovered, and whether any delivery is pending at all (as it was when the statement began): when none
   * is, nothing can come due until a delivery is created, and every creation notifies the workers. Prepared: it
   * runs every second on every instance.
   */
  async releaseRecoveredAndLook(): Promise<{ released: number; pending: boolean }> {
    const [row] = (await executePrepared(this.db.dataSource, { text: releaseRecoveredSql((name) => this.db.table(name), true), params: [] })) as Array<{
      released: number;
      pending: boolean;
    }>;
    return row!;
  }

  /** The attempt row's insert, parameters $1..$8 as `attemptValues` lists them. */
  private insertAttemptSql(): string {
    return `INSERT INTO ${this.db.table('attempts')}
         (delivery_id, attempt_number, attempted_at, status_code, latency_ms, response_excerpt, error, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;
  }

  private attemptValues(claimed: ClaimedDelivery, record: AttemptRecord): unknown[] {
    return [
      claimed.id,
      claimed.attemptCount + 1,
      record.attemptedAt,
      record.statusCode,
      record.latencyMs,
      record.responseExcerpt,
      record.error,
      record.next.status === 'pending' ? record.next.nextAttemptAt : null,
    ];
  }

  /** Ends a claimed delivery without an attempt (its endpoint was disabled or deleted meanwhile). */
  async abandon(claimed: ClaimedDelivery, reason: string): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE ${this.db.table('deliveries')}
       SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, lease_token = NULL, finished_at = now(),
           failure_reason = $3
       WHERE id = $1 AND lease_token = $2 AND status = 'pending'`,
      [claimed.id, claimed.leaseToken, reason],
    );
  }

  /** Gives a claim back unattempted (shutting down before it was sent): due again at once. */
  async release(claimed: ClaimedDelivery): Promise<void> {
    await this.db.dataSource.query(
      `UPDATE ${this.db.table('deliveries')} SET locked_until = NULL, lease_token = NULL WHERE id = $1 AND lease_token = $2`,
      [claimed.id, claimed.leaseToken],
    );
  }

  /** Ends every pending delivery of an endpoint that stopped being active; they are replayed if it comes back. */
  async failPending(manager: EntityManager, endpointId: string, reason: string): Promise<number> {
    const result = (await manager.query(
      `UPDATE ${this.db.table('deliveries')}
       SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, lease_token = NULL, finished_at = now(),
           failure_reason = $2
       WHERE endpoint_id = $1 AND status = 'pending'`,
      [endpointId, reason],
    )) as [unknown[], number];
    return result[1];
  }

  /**
   * Stores a transaction's public events and schedules their first sends, in one prepared statement (see
   * firstSendsWrites). Answers, by event id, whether it was new (an event already stored gets no deliveries) and
   * how many deliveries it got.
   */
  async storeAndScheduleFirstSends(manager: EntityManager, events: readonly StoredEvent[]): Promise<Map<string, { stored: boolean; deliveries: number }>> {
    const outcomes = new Map<string, { stored: boolean; deliveries: number }>();
    if (events.length === 0) return outcomes;
    const writes = this.firstSendsWrites(events, { onlyClaimed: false });
    const rows = (await executePreparedIn(manager, {
      text: `WITH ${writes.text}
       SELECT s.id AS event_id, (SELECT count(*)::int FROM scheduled d WHERE d.event_id = s.id) AS deliveries FROM stored s`,
      params: writes.params,
    })) as Array<{ event_id: string; deliveries: number }>;
    for (const event of events) outcomes.set(event.id, { stored: false, deliveries: 0 });
    for (const row of rows) outcomes.set(row.event_id, { stored: true, deliveries: row.deliveries });
    return outcomes;
  }

  /**
   * Public events stored, with their first sends: to every active endpoint of an event's merchant and environment
   * that takes its type and existed when it occurred (a new consumer group reads the topics from the beginning, and
   * an endpoint gets events from its creation on; older ones only by an explicit replay). A failing endpoint's
   * deliveries join its held queue at once, rather than at its next failure. The workers are woken when any
   * delivery was made (on commit; one notification however many rows). As CTEs (`input`, `stored`, `scheduled`):
   * `onlyClaimed` keeps only the events of the inbox's `claimed` (see ClaimedWrites), so the consumer writes them
   * with its claim in one statement; the text never changes, so it is prepared.
   */
  firstSendsWrites(events: readonly StoredEvent[], { onlyClaimed }: { onlyClaimed: boolean }): SqlStatement {
    const t = (name: string) => this.db.table(name);
    const column = <T>(value: (event: StoredEvent) => T) => events.map(value);
    return {
      text: `input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::text[], $9::text[], $10::text[])
           WITH ORDINALITY AS i(id, merchant_id, environment, type, aggregate_id, sequence, occurred_at, scheme, body, trace_context, n)
         ${onlyClaimed ? 'WHERE i.id IN (SELECT event_id FROM claimed)' : ''}
       ), stored AS (
         INSERT INTO ${t('events')} (id, merchant_id, environment, type, aggregate_id, sequence, occurred_at, scheme, body, trace_context)
         SELECT id, merchant_id, environment, type, aggregate_id, sequence, occurred_at, scheme, body, trace_context FROM input ORDER BY n
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), scheduled AS (
         INSERT INTO ${t('deliveries')} (id, endpoint_id, event_id, kind, status, next_attempt_at, held)
         SELECT 'wd_' || ${t('random_base62')}(24), ep.id, s.id, 'first', 'pending', now(), ep.failing_since IS NOT NULL
         FROM input i JOIN stored s ON s.id = i.id
         JOIN ${t('endpoints')} ep
           ON ep.merchant_id = i.merchant_id AND ep.environment = i.environment AND ${activeEndpointSql('ep')}
          AND (ep.events IS NULL OR i.type = ANY(ep.events)) AND ep.created_at <= i.occurred_at
         ORDER BY i.n, ep.id
         ON CONFLICT (endpoint_id, event_id) WHERE kind = 'first' DO NOTHING
         RETURNING event_id, pg_notify($11, $12) AS woke
       )`,
      params: [
        column((e) => e.id),
        column((e) => e.merchantId),
        column((e) => e.environment),
        column((e) => e.type),
        column((e) => e.aggregateId),
        column((e) => e.sequence),
        column((e) => e.occurredAt),
        column((e) => e.scheme),
        column((e) => e.body),
        column((e) => e.traceContext ?? null),
        this.db.deliveriesChannel,
        this.db.notifier,
      ],
    };
  }

  /** New pending deliveries of `eventIds` to one endpoint (resend, replay, test), due now; held while it is failing. */
  async schedule(manager: EntityManager, endpointId: string, eventIds: readonly string[], kind: Exclude<DeliveryKind, 'first'>): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const ids = eventIds.map(() => newDeliveryId());
    await manager.query(
      `INSERT INTO ${this.db.table('deliveries')} (id, endpoint_id, event_id, kind, status, next_attempt_at, held)
       SELECT d.id, $3, d.event_id, $4, 'pending', now(),
              (SELECT ep.failing_since IS NOT NULL FROM ${this.db.table('endpoints')} ep WHERE ep.id = $3)
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS d(id, event_id, n)
       ORDER BY d.n`,
      [ids, eventIds, endpointId, kind],
    );
    return ids;
  }
}
