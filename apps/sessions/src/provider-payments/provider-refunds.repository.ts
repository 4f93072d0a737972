import { postgresErrorCode } from '@payments/database';
import type { Environment } from '@payments/ids';
import type { EntityManager } from 'typeorm';

export type ProviderRefundStatus = 'pending' | 'completed' | 'failed';


/** One refund asked of a provider for the refunds service (its refund id is the key). */
export interface ProviderRefundRow {
  readonly refundId: string;
  /** The provider attempt's reference: the transaction refunded. */
  readonly reference: string;
  readonly provider: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly paymentId: string;
  readonly amountCents: number;
  /** The provider's id of the refund, once an answer gave it (or its list showed it). */
  readonly providerRefundId: string | null;
  readonly status: ProviderRefundStatus;
  readonly failureReason: string | null;
  /** When the last create request that may have reached the provider, unanswered, was sent; null when none may have. */
  readonly requestedAt: Date | null;
  readonly requests: number;
  /**
   * The provider's words refusing a create request sent again: the first may have made the refund (then it shows in
   * the list), so this is no answer until the list has long not shown it.
   */
  readonly resendRefused: string | null;
}

interface Row {
  refund_id: string;
  reference: string;
  provider: string;
  merchant_id: string;
  environment: Environment;
  payment_id: string;
  amount_cents: string;
  provider_refund_id: string | null;
  status: ProviderRefundStatus;
  failure_reason: string | null;
  requested_at: Date | null;
  requests: number;
  resend_refused: string | null;
}

const COLUMNS = 'refund_id, reference, provider, merchant_id, environment, payment_id, amount_cents, provider_refund_id, status, failure_reason, requested_at, requests, resend_refused';

/** Postgres' unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** Provider refunds in the sessions schema (SQL only; the rules are in ProviderRefunds). */
export class ProviderRefundsRepository {
  private readonly table: string;

  constructor(schemaTable: (name: string) => string) {
    this.table = schemaTable('provider_refunds');
  }

  /** Records the refund as about to be asked of the provider; null when its id has a row already (nothing written). */
  async insertRequested(manager: EntityManager, refund: Omit<ProviderRefundRow, 'providerRefundId' | 'status' | 'failureReason' | 'requests' | 'resendRefused'>): Promise<ProviderRefundRow | null> {
    const rows: Row[] = await manager.query(
      `INSERT INTO ${this.table} (refund_id, reference, provider, merchant_id, environment, payment_id, amount_cents, requested_at, requests)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1)
       ON CONFLICT (refund_id) DO NOTHING RETURNING ${COLUMNS}`,
      [refund.refundId, refund.reference, refund.provider, refund.merchantId, refund.environment, refund.paymentId, refund.amountCents, refund.requestedAt],
    );
    return rows[0] ? rowOf(rows[0]) : null;
  }

  async find(manager: EntityManager, refundId: string): Promise<ProviderRefundRow | null> {
    const rows: Row[] = await manager.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE refund_id = $1`, [refundId]);
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** Pending refunds a provider notification may be about: by the provider's refund id, or of the transaction. */
  async findPendingFor(manager: EntityManager, provider: string, ids: { providerRefundId: string | null; reference: string | null }, limit: number): Promise<ProviderRefundRow[]> {
    const rows: Row[] = await manager.query(
      `SELECT ${COLUMNS} FROM ${this.table}
        WHERE provider = $1 AND status = 'pending' AND (provider_refund_id = $2 OR reference = $3)
        ORDER BY created_at LIMIT $4`,
      [provider, ids.providerRefundId, ids.reference, limit],
    );
    return rows.map(rowOf);
  }

  /** The provider's refund ids already ours, of this transaction. */
  async claimedIds(manager: EntityManager, provider: string, reference: string): Promise<Set<string>> {
    const rows: Array<{ provider_refund_id: string }> = await manager.query(
      `SELECT provider_refund_id FROM ${this.table} WHERE provider = $1 AND reference = $2 AND provider_refund_id IS NOT NULL`,
      [provider, reference],
    );
    return new Set(rows.map((r) => r.provider_refund_id));
  }

  /**
   * Takes the right to send a create request now: only when none is outstanding since `outstandingSince` (null: none
   * sent, or the last certainly did not arrive). False when another caller took it first.
   */
  async claimRequest(manager: EntityManager, refundId: string, outstandingSince: Date | null, now: Date): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE ${this.table} SET requested_at = $3, requests = requests + 1
        WHERE refund_id = $1 AND status = 'pending' AND provider_refund_id IS NULL AND requested_at IS NOT DISTINCT FROM $2
        RETURNING refund_id`,
      [refundId, outstandingSince, now],
    );
    return rows.length === 1;
  }

  /** The provider refused a create request sent again (its words): no answer yet, see `resendRefused`. */
  async markResendRefused(manager: EntityManager, refundId: string, words: string): Promise<void> {
    await manager.query(`UPDATE ${this.table} SET resend_refused = $2 WHERE refund_id = $1 AND status = 'pending'`, [refundId, words]);
  }

  /** The create request certainly never reached the provider: the next check may send it again at once. */
  async markNotSent(manager: EntityManager, refundId: string, sentAt: Date): Promise<void> {
    await manager.query(`UPDATE ${this.table} SET requested_at = NULL WHERE refund_id = $1 AND provider_refund_id IS NULL AND requested_at = $2`, [refundId, sentAt]);
  }

  /**
   * Makes the provider's refund `providerRefundId` this one's; false when another of ours has it (or this one has
   * another already).
   */
  async claimProviderId(manager: EntityManager, refundId: string, provider: string, providerRefundId: string): Promise<boolean> {
    try {
      const [rows]: [unknown[], number] = await manager.query(
        `UPDATE ${this.table} SET provider_refund_id = $3 WHERE refund_id = $1 AND provider = $2 AND provider_refund_id IS NULL RETURNING refund_id`,
        [refundId, provider, providerRefundId],
      );
      return rows.length === 1;
    } catch (error) {
      if (postgresErrorCode(error) === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  /** Writes a final status once (a refund already final stays as it was); true when this call wrote it. */
  async resolve(manager: EntityManager, refundId: string, outcome: { status: 'completed' | 'failed'; reason: string | null }, now: Date): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE ${this.table} SET status = $2, failure_reason = $3, resolved_at = $4 WHERE refund_id = $1 AND status = 'pending' RETURNING refund_id`,
      [refundId, outcome.status, outcome.status === 'failed' ? outcome.reason : null, now],
    );
    return rows.length === 1;
  }
}

function rowOf(row: Row): ProviderRefundRow {
  return {
    refundId: row.refund_id,
    reference: row.reference,
    provider: row.provider,
    merchantId: row.merchant_id,
    environment: row.environment,
    paymentId: row.payment_id,
    amountCents: Number(row.amount_cents),
    providerRefundId: row.provider_refund_id,
    status: row.status,
    failureReason: row.failure_reason,
    requestedAt: row.requested_at,
    requests: row.requests,
    resendRefused: row.resend_refused,
  };
}
