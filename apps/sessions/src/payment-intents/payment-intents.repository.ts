import { qualified, type SqlStatement } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import { setAsideExpiry } from '../expiry/set-aside';
import type { PaymentIntentResource, PaymentIntentState } from '../domain';
import type { StreamScope } from '../event-store/event-store';
import type { DueSession } from '../expiry/due-session';

/** The `payment_intents` read model: a row per intent with the resource GET returns, written with its events. */
export class PaymentIntentsRepository {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'payment_intents');
  }

  async insert(manager: EntityManager, state: PaymentIntentState, resource: PaymentIntentResource, now: Date): Promise<void> {
    const { text, params } = this.insertStatement(state, resource, now);
    await manager.query(text, params as unknown[]);
  }

  insertStatement(state: PaymentIntentState, resource: PaymentIntentResource, now: Date): SqlStatement {
    return {
      text: `INSERT INTO ${this.table}
         (id, merchant_id, environment, status, amount_cents, currency, payment_method, external_ref, payment_id,
          created_at, expires_at, paid_at, updated_at, version, resource)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb)`,
      params: [
        state.id,
        state.merchantId,
        state.environment,
        state.status,
        state.amountCents,
        state.currency,
        state.paymentMethod,
        state.externalRef,
        state.paymentId,
        state.createdAt,
        state.expiresAt,
        state.paidAt,
        now,
        state.version,
        JSON.stringify(resource),
      ],
    };
  }

  /**
   * Moves the row to `state` if it is still at `expectedVersion`, returning a row when it did. The row lock this
   * takes orders concurrent writers of one intent (the expiry job locks rows the same way).
   */
  updateStatement(state: PaymentIntentState, resource: PaymentIntentResource, expectedVersion: number, now: Date): SqlStatement {
    return {
      text: `UPDATE ${this.table}
       SET status = $4, payment_method = $5, payment_id = $6, paid_at = $7, updated_at = $8, version = $9, resource = $10::jsonb
       WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND version = $11
       RETURNING version`,
      params: [
        state.id,
        state.merchantId,
        state.environment,
        state.status,
        state.paymentMethod,
        state.paymentId,
        state.paidAt,
        now,
        state.version,
        JSON.stringify(resource),
        expectedVersion,
      ],
    };
  }

  async findResource(manager: EntityManager, scope: StreamScope, id: string): Promise<PaymentIntentResource | null> {
    const [row]: Array<{ resource: PaymentIntentResource }> = await manager.query(
      `SELECT resource FROM ${this.table} WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
      [id, scope.merchantId, scope.environment],
    );
    return row?.resource ?? null;
  }

  /** Locks up to `limit` intents past expires_at that are not final yet; rows another transaction holds are skipped. */
  async lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]> {
    const rows: Array<{ id: string; merchant_id: string; environment: 'live' | 'test' }> = await manager.query(
      `SELECT id, merchant_id, environment FROM ${this.table}
       WHERE status IN ('requires_payment_method', 'processing', 'failed') AND expires_at <= $1
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
