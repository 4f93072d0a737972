import { qualified, type SqlStatement } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import { setAsideExpiry } from '../expiry/set-aside';
import type { InvoiceResource, InvoiceState } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import type { DueSession } from '../expiry/due-session';

/** The `invoices` read model: a row per invoice with the resource GET returns, written with its events. */
export class InvoicesRepository {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'invoices');
  }

  async insert(manager: EntityManager, state: InvoiceState, resource: InvoiceResource, now: Date): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.table}
         (id, merchant_id, environment, number, status, amount_cents, currency, external_ref, payment_id,
          created_at, expires_at, paid_at, updated_at, version, resource)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb)`,
      [
        state.id,
        state.merchantId,
        state.environment,
        state.number,
        state.status,
        state.amountCents,
        state.currency,
        state.externalRef,
        state.payment?.reference ?? null,
        state.createdAt,
        state.expiresAt,
        state.paidAt,
        now,
        state.version,
        JSON.stringify(resource),
      ],
    );
  }

  /** Moves the row to `state` if it is still at `expectedVersion`, returning a row when it did (as for intents). */
  updateStatement(state: InvoiceState, resource: InvoiceResource, expectedVersion: number, now: Date): SqlStatement {
    return {
      text: `UPDATE ${this.table}
       SET status = $4, payment_id = $5, paid_at = $6, updated_at = $7, version = $8, resource = $9::jsonb
       WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND version = $10
       RETURNING version`,
      params: [
        state.id,
        state.merchantId,
        state.environment,
        state.status,
        state.payment?.reference ?? null,
        state.paidAt,
        now,
        state.version,
        JSON.stringify(resource),
        expectedVersion,
      ],
    };
  }

  async findResource(manager: EntityManager, scope: StreamScope, id: string): Promise<InvoiceResource | null> {
    const [row]: Array<{ resource: InvoiceResource }> = await manager.query(
      `SELECT resource FROM ${this.table} WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
      [id, scope.merchantId, scope.environment],
    );
    return row?.resource ?? null;
  }

  /** Locks up to `limit` pending or failed invoices past expires_at; rows another transaction holds are skipped. */
  async lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]> {
    const rows: Array<{ id: string; merchant_id: string; environment: 'live' | 'test' }> = await manager.query(
      `SELECT id, merchant_id, environment FROM ${this.table}
       WHERE status IN ('pending', 'failed') AND expires_at <= $1
         AND (expiry_retry_at IS NULL OR expiry_retry_at <= $1)
       ORDER BY expires_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id, environment: row.environment }));
  }

  /** See setAsideExpiry. */
  setAsideExpiry(manager: EntityManager, id: string, now: Date): Promise<number> {
    return setAsideExpiry(manager, this.table, id, now);
  }
}
