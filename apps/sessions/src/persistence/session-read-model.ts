import { qualified, type SqlStatement } from '@payments/database';
import type { EntityManager } from 'typeorm';
import type { StreamScope } from '../event-store/event-store';
import type { DueSession } from '../expiry/due-session';

/** How one kind's read-model table is laid out: its name, the columns a state fills, the statuses that expire. */
export interface ReadModelLayout<S> {
  readonly table: string;
  /** The kind's own columns written once, at creation (every kind has those of SessionRow). */
  readonly creationColumns: readonly string[];
  /** The kind's own columns every change writes. */
  readonly changeColumns: readonly string[];
  /** The value of each of the kind's own columns in a state. */
  values(state: S): Record<string, unknown>;
  /** Non-final statuses: these expire once expires_at has passed (written into the query, as the partial index is). */
  readonly expiringStatuses: readonly string[];
}

/** A list's filters in the read model's terms (ResolvedListFilter and the reference). */
export interface SessionListFilter {
  readonly status: string | null;
  readonly createdGte: Date | null;
  readonly createdLt: Date | null;
  readonly amountMinCents: number | null;
  readonly amountMaxCents: number | null;
  readonly externalRef: string | null;
}

/** What every session's row holds besides its id, owner, version and resource. */
export interface SessionRow {
  readonly id: string;
  readonly merchantId: string;
  readonly environment: string;
  readonly version: number;
  readonly status: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly externalRef: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly paidAt: string | null;
}

const CREATION_COLUMNS = ['amount_cents', 'currency', 'external_ref', 'created_at', 'expires_at'];
const CHANGE_COLUMNS = ['status', 'paid_at'];

const rowValues = (state: SessionRow): Record<string, unknown> => ({
  amount_cents: state.amountCents,
  currency: state.currency,
  external_ref: state.externalRef,
  created_at: state.createdAt,
  expires_at: state.expiresAt,
  status: state.status,
  paid_at: state.paidAt,
});

/**
 * A read model of sessions (`payment_intents`, `invoices`): a row per session with the resource GET answers,
 * written with its events, guarded by the stream version it was decided on. One class for both kinds; each
 * says its columns (ReadModelLayout).
 */
export class SessionReadModel<S extends SessionRow, R> {
  private readonly table: string;
  private readonly insertText: string;
  private readonly updateText: string;
  private readonly lockDueText: string;
  /** Rows past expires_at that are not final and not set aside, as a query (its $1 the time): what lockDue locks. */
  readonly dueQuery: string;
  private readonly creationColumns: readonly string[];
  private readonly changeColumns: readonly string[];

  constructor(
    schema: string,
    private readonly layout: ReadModelLayout<S>,
  ) {
    this.table = qualified(schema, layout.table);
    // Each statement's text is fixed once (they run as prepared statements).
    this.creationColumns = [...CREATION_COLUMNS, ...layout.creationColumns];
    this.changeColumns = [...CHANGE_COLUMNS, ...layout.changeColumns];
    const insertColumns = ['id', 'merchant_id', 'environment', ...this.creationColumns, ...this.changeColumns, 'updated_at', 'version', 'resource'];
    this.insertText = `INSERT INTO ${this.table} (${insertColumns.join(', ')})
       VALUES (${insertColumns.map((column, i) => (column === 'resource' ? `$${i + 1}::jsonb` : `$${i + 1}`)).join(', ')})`;
    const changed = [...this.changeColumns, 'updated_at', 'version', 'resource'];
    this.updateText = `UPDATE ${this.table}
       SET ${changed.map((column, i) => `${column} = $${i + 4}${column === 'resource' ? '::jsonb' : ''}`).join(', ')}
       WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND version = $${changed.length + 4}
       RETURNING version`;
    const statuses = layout.expiringStatuses.map((status) => `'${status.replace(/'/g, "''")}'`).join(', ');
    const due = `status IN (${statuses}) AND expires_at <= $1
         AND (expiry_retry_at IS NULL OR expiry_retry_at <= $1)`;
    this.dueQuery = `SELECT 1 FROM ${this.table} WHERE ${due}`;
    this.lockDueText = `SELECT id, merchant_id, environment FROM ${this.table}
       WHERE ${due}
       ORDER BY expires_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED`;
  }

  insertStatement(state: S, resource: R, now: Date): SqlStatement {
    return { text: this.insertText, params: this.params(state, [...this.creationColumns, ...this.changeColumns], resource, now) };
  }

  /**
   * Moves the row to `state` if it is still at `expectedVersion`, returning a row when it did. The row lock this
   * takes orders concurrent writers of one session (the expiry job locks rows the same way).
   */
  updateStatement(state: S, resource: R, expectedVersion: number, now: Date): SqlStatement {
    return { text: this.updateText, params: [...this.params(state, this.changeColumns, resource, now), expectedVersion] };
  }

  /** id, merchant, environment, the columns in order, then updated_at, version and the resource. */
  private params(state: S, columns: readonly string[], resource: R, now: Date): unknown[] {
    const values = { ...rowValues(state), ...this.layout.values(state) };
    return [state.id, state.merchantId, state.environment, ...columns.map((column) => values[column]), now, state.version, JSON.stringify(resource)];
  }

  async findResource(manager: EntityManager, scope: StreamScope, id: string): Promise<R | null> {
    const [row]: Array<{ resource: R }> = await manager.query(
      `SELECT resource FROM ${this.table} WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
      [id, scope.merchantId, scope.environment],
    );
    return row?.resource ?? null;
  }

  /**
   * A page of the scope's sessions, newest first on (created_at, id), with the filters; `after` is the id of the
   * previous page's last session, which must be one of the scope's (null when it is not: the caller refuses it).
   * A status filter means the status GET shows at `now`: a session that is not final and past expires_at reads as
   * expired before the expiry job writes it, so it is listed under `expired` and not under its stored status.
   */
  async list(
    manager: EntityManager,
    scope: StreamScope,
    filter: SessionListFilter,
    now: Date,
    limit: number,
    after: string | null,
  ): Promise<{ resources: R[]; hasMore: boolean } | null> {
    const params: unknown[] = [scope.merchantId, scope.environment];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['merchant_id = $1', 'environment = $2'];
    if (after !== null) {
      const [cursor]: Array<{ id: string }> = await manager.query(`SELECT id FROM ${this.table} WHERE id = $1 AND merchant_id = $2 AND environment = $3`, [
        after,
        scope.merchantId,
        scope.environment,
      ]);
      if (!cursor) return null;
      // Compared in SQL, at the row's own precision.
      where.push(`(created_at, id) < (SELECT created_at, id FROM ${this.table} WHERE id = ${param(after)})`);
    }
    if (filter.status !== null) {
      const expiring = this.layout.expiringStatuses;
      if (filter.status === 'expired') {
        where.push(`(status = 'expired' OR (status = ANY(${param(expiring)}::text[]) AND expires_at <= ${param(now)}))`);
      } else if (expiring.includes(filter.status)) {
        where.push(`status = ${param(filter.status)} AND expires_at > ${param(now)}`);
      } else {
        where.push(`status = ${param(filter.status)}`);
      }
    }
    if (filter.createdGte) where.push(`created_at >= ${param(filter.createdGte)}`);
    if (filter.createdLt) where.push(`created_at < ${param(filter.createdLt)}`);
    if (filter.amountMinCents !== null && filter.amountMinCents === filter.amountMaxCents) {
      where.push(`amount_cents = ${param(filter.amountMinCents)}`);
    } else {
      if (filter.amountMinCents !== null) where.push(`amount_cents >= ${param(filter.amountMinCents)}`);
      if (filter.amountMaxCents !== null) where.push(`amount_cents <= ${param(filter.amountMaxCents)}`);
    }
    if (filter.externalRef !== null) where.push(`external_ref = ${param(filter.externalRef)}`);
    const rows: Array<{ resource: R }> = await manager.query(
      `SELECT resource FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit + 1)}`,
      params,
    );
    return { resources: rows.slice(0, limit).map((row) => row.resource), hasMore: rows.length > limit };
  }

  /** Whose session this is (the hosted checkout knows the id alone), or null. */
  async findOwner(manager: EntityManager, id: string): Promise<StreamScope | null> {
    const [row]: Array<{ merchant_id: string; environment: 'live' | 'test' }> = await manager.query(`SELECT merchant_id, environment FROM ${this.table} WHERE id = $1`, [id]);
    return row ? { merchantId: row.merchant_id, environment: row.environment } : null;
  }

  /** Locks up to `limit` sessions past expires_at that are not final; rows another transaction holds are skipped. */
  async lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]> {
    const rows: Array<{ id: string; merchant_id: string; environment: 'live' | 'test' }> = await manager.query(this.lockDueText, [now, limit]);
    return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id, environment: row.environment }));
  }

  /**
   * After a failed expiry (its savepoint rolled back): the session is out of line until a later retry, one second
   * doubling with each failure up to an hour. Answers how many times it has failed.
   */
  async setAsideExpiry(manager: EntityManager, id: string, now: Date): Promise<number> {
    // TypeORM answers an UPDATE with [rows, count].
    const [rows]: [Array<{ expiry_failures: number }>, number] = await manager.query(
      `UPDATE ${this.table}
       SET expiry_failures = expiry_failures + 1,
           expiry_retry_at = $2::timestamptz + least(interval '1 second' * power(2, expiry_failures), interval '1 hour')
       WHERE id = $1
       RETURNING expiry_failures`,
      [id, now],
    );
    return rows[0]?.expiry_failures ?? 0;
  }
}
