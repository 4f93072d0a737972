import { executePreparedIn, qualified, type SqlStatement } from '@payments/database';
import type { Environment } from '@payments/ids';
import type { EntityManager } from 'typeorm';

export interface Scope {
  readonly merchantId: string;
  readonly environment: Environment;
}

export interface StoredPayment {
  readonly id: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly source: string;
  readonly method: string;
  readonly currency: 'USD';
  readonly amountCents: number;
  readonly feeCents: number;
  readonly netCents: number;
  /** Pending and completed refunds. */
  readonly reservedCents: number;
  /** Completed refunds. */
  readonly refundedCents: number;
  readonly paidAt: Date;
  /** The external_ref of the intent or invoice paid, when known. */
  readonly externalRef: string | null;
}

/** A list's filters in the repository's terms (ResolvedListFilter with the list's own fields). */
export interface ListFilterTerms {
  readonly status: string | null;
  readonly createdGte: Date | null;
  readonly createdLt: Date | null;
  readonly amountMinCents: number | null;
  readonly amountMaxCents: number | null;
}

export const NO_FILTER: ListFilterTerms = { status: null, createdGte: null, createdLt: null, amountMinCents: null, amountMaxCents: null };

/** Appends the amount and time conditions of a filter (columns named by the caller) to `where`. */
function rangeConditions(filter: ListFilterTerms, timeColumn: string, where: string[], param: (value: unknown) => string): void {
  if (filter.createdGte) where.push(`${timeColumn} >= ${param(filter.createdGte)}`);
  if (filter.createdLt) where.push(`${timeColumn} < ${param(filter.createdLt)}`);
  if (filter.amountMinCents !== null && filter.amountMinCents === filter.amountMaxCents) {
    where.push(`amount_cents = ${param(filter.amountMinCents)}`);
    return;
  }
  if (filter.amountMinCents !== null) where.push(`amount_cents >= ${param(filter.amountMinCents)}`);
  if (filter.amountMaxCents !== null) where.push(`amount_cents <= ${param(filter.amountMaxCents)}`);
}

/** A payment's status as the resource shows it (domain paymentStatus), as a condition on its row. */
const PAYMENT_STATUS_CONDITIONS: Record<string, string> = {
  succeeded: 'refunded_cents = 0',
  // Both on the partial index of refunded payments (refunded_cents > 0).
  partially_refunded: 'refunded_cents > 0 AND refunded_cents < amount_cents',
  refunded: 'refunded_cents > 0 AND refunded_cents >= amount_cents',
};

export interface StoredRefund {
  readonly id: string;
  readonly paymentId: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly currency: 'USD';
  readonly reason: string | null;
  readonly status: 'pending' | 'completed' | 'failed';
  readonly failureReason: string | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
}

export type NewPayment = Omit<StoredPayment, 'reservedCents' | 'refundedCents'>;
/** `nextCheckAt`: when a refund pending at its provider is first asked about again (null for one complete at once). */
export type NewRefund = StoredRefund & { readonly idempotencyKey: string; readonly nextCheckAt: Date | null };

interface PaymentRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  source: string;
  method: string;
  currency: 'USD';
  amount_cents: string;
  fee_cents: string;
  net_cents: string;
  reserved_cents: string;
  refunded_cents: string;
  paid_at: Date;
  external_ref: string | null;
}

interface RefundRow {
  id: string;
  payment_id: string;
  merchant_id: string;
  environment: Environment;
  amount_cents: string;
  currency: 'USD';
  reason: string | null;
  status: StoredRefund['status'];
  failure_reason: string | null;
  created_at: Date;
  completed_at: Date | null;
}

function paymentColumns(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}id::text AS id, ${a}merchant_id, ${a}environment, ${a}source, ${a}method, ${a}currency, ${a}amount_cents::text AS amount_cents,
    ${a}fee_cents::text AS fee_cents, ${a}net_cents::text AS net_cents, ${a}reserved_cents::text AS reserved_cents,
    ${a}refunded_cents::text AS refunded_cents, ${a}paid_at, ${a}external_ref`;
}
const PAYMENT_COLUMNS = paymentColumns();
const REFUND_COLUMNS = `id, payment_id::text, merchant_id, environment, amount_cents::text, currency, reason, status, failure_reason,
  created_at, completed_at`;

const MAX_INT64 = 9223372036854775807n;

/** Payment ids are positive 64-bit numbers: anything else names no payment (and must not reach a bigint cast). */
export function isPaymentIdText(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= MAX_INT64;
}

function payment(row: PaymentRow): StoredPayment {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    source: row.source,
    method: row.method,
    currency: row.currency,
    amountCents: Number(row.amount_cents),
    feeCents: Number(row.fee_cents),
    netCents: Number(row.net_cents),
    reservedCents: Number(row.reserved_cents),
    refundedCents: Number(row.refunded_cents),
    paidAt: row.paid_at,
    externalRef: row.external_ref,
  };
}

function refund(row: RefundRow): StoredRefund {
  return {
    id: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** The refunds schema's payments and refunds. Every query is scoped by merchant and environment. */
export class RefundsRepository {
  private readonly payments: string;
  private readonly refunds: string;

  constructor(schema: string) {
    this.payments = qualified(schema, 'payments');
    this.refunds = qualified(schema, 'refunds');
  }

  /**
   * Records a payment once, whoever reports it first (its event, or sessions asked directly). Only its
   * external_ref may be learnt later: sessions' answer has none, the event that follows it does.
   */
  /**
   * addPayment for several payments in one statement (a consumer transaction's worth); ids unique within the call.
   * Named: its text is the same whatever the count (arrays carry the rows).
   */
  /** Records payments (see paymentsWrites) in the caller's transaction, in one prepared statement. */
  async addPayments(manager: EntityManager, payments: ReadonlyArray<{ payment: NewPayment; eventId: string }>): Promise<void> {
    if (payments.length === 0) return;
    const writes = this.paymentsWrites(payments, { onlyClaimed: false });
    await executePreparedIn(manager, { text: `WITH ${writes.text} SELECT 1`, params: writes.params });
  }

  /**
   * Payments recorded, as a CTE (`payments`), each from the event that brought it; a payment already recorded is
   * left as it is but for an external_ref it lacked. A payment may come in several events of a run (one row each,
   * the payment as the run's events together make it): it is written once. `onlyClaimed` keeps only rows of events
   * in the inbox's `claimed` (see ClaimedWrites), so the consumer writes them with its claim in one statement.
   */
  paymentsWrites(payments: ReadonlyArray<{ payment: NewPayment; eventId: string }>, { onlyClaimed }: { onlyClaimed: boolean }): SqlStatement {
    const column = <T>(value: (p: NewPayment) => T) => payments.map(({ payment }) => value(payment));
    return {
      text: `payments AS (
         INSERT INTO ${this.payments} AS p (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, paid_at, external_ref)
         SELECT DISTINCT ON (x.id) x.id, x.merchant_id, x.environment, x.source, x.method, x.currency, x.amount_cents, x.fee_cents, x.net_cents, x.paid_at, x.external_ref
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::timestamptz[], $11::text[], $12::text[])
           WITH ORDINALITY AS x(id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, paid_at, external_ref, event_id, n)
         ${onlyClaimed ? 'WHERE x.event_id IN (SELECT event_id FROM claimed)' : ''}
         ORDER BY x.id, x.n
         ON CONFLICT (id) DO UPDATE SET external_ref = EXCLUDED.external_ref WHERE p.external_ref IS NULL AND EXCLUDED.external_ref IS NOT NULL
         RETURNING p.id)`,
      params: [
        column((p) => p.id),
        column((p) => p.merchantId),
        column((p) => p.environment),
        column((p) => p.source),
        column((p) => p.method),
        column((p) => p.currency),
        column((p) => p.amountCents),
        column((p) => p.feeCents),
        column((p) => p.netCents),
        column((p) => p.paidAt),
        column((p) => p.externalRef),
        payments.map(({ eventId }) => eventId),
      ],
    };
  }

  async addPayment(manager: EntityManager, p: NewPayment): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.payments} AS p (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, paid_at, external_ref)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO UPDATE SET external_ref = EXCLUDED.external_ref WHERE p.external_ref IS NULL AND EXCLUDED.external_ref IS NOT NULL`,
      [p.id, p.merchantId, p.environment, p.source, p.method, p.currency, p.amountCents, p.feeCents, p.netCents, p.paidAt, p.externalRef],
    );
  }

  async findPayment(manager: EntityManager, scope: Scope, id: string): Promise<StoredPayment | null> {
    if (!isPaymentIdText(id)) return null;
    const rows = (await manager.query(`SELECT ${PAYMENT_COLUMNS} FROM ${this.payments} WHERE id = $1 AND merchant_id = $2 AND environment = $3`, [
      id,
      scope.merchantId,
      scope.environment,
    ])) as PaymentRow[];
    return rows[0] ? payment(rows[0]) : null;
  }

  /**
   * Sets aside `cents` of the payment (what remains when null) for a refund, in one statement: the row's lock
   * serializes concurrent requests, and a request that does not fit in what remains changes nothing. Returns the
   * payment after the change and the cents set aside, or null (no such payment here, or not enough left).
   */
  async reserve(manager: EntityManager, scope: Scope, id: string, cents: number | null): Promise<{ payment: StoredPayment; cents: number } | null> {
    if (!isPaymentIdText(id)) return null;
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows] = (await manager.query(
      `WITH asked AS (SELECT COALESCE($4::bigint, p.amount_cents - p.reserved_cents) AS cents FROM ${this.payments} p WHERE p.id = $1)
       UPDATE ${this.payments} p SET reserved_cents = p.reserved_cents + asked.cents
         FROM asked
        WHERE p.id = $1 AND p.merchant_id = $2 AND p.environment = $3
          AND asked.cents > 0 AND p.reserved_cents + asked.cents <= p.amount_cents
       RETURNING ${paymentColumns('p')}, asked.cents::text AS asked_cents`,
      [id, scope.merchantId, scope.environment, cents],
    )) as [Array<PaymentRow & { asked_cents: string }>, number];
    const row = rows[0];
    return row ? { payment: payment(row), cents: Number(row.asked_cents) } : null;
  }

  /** Counts a reserved refund as completed (the payment's row is already locked by reserve). */
  completeStatement(paymentId: string, cents: number): SqlStatement {
    return { text: `UPDATE ${this.payments} SET refunded_cents = refunded_cents + $2 WHERE id = $1`, params: [paymentId, cents] };
  }

  /**
   * Inserts the refund unless its key already made one (then it returns no row, and the caller undoes its
   * reservation by rolling back).
   */
  insertRefundStatement(r: NewRefund): SqlStatement {
    return {
      text: `INSERT INTO ${this.refunds}
         (id, payment_id, merchant_id, environment, amount_cents, currency, reason, status, failure_reason, idempotency_key, created_at, completed_at, next_check_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (merchant_id, environment, idempotency_key) DO NOTHING RETURNING id`,
      params: [r.id, r.paymentId, r.merchantId, r.environment, r.amountCents, r.currency, r.reason, r.status, r.failureReason, r.idempotencyKey, r.createdAt, r.completedAt, r.nextCheckAt],
    };
  }

  async findRefundByKey(manager: EntityManager, scope: Scope, key: string): Promise<StoredRefund | null> {
    const rows = (await manager.query(`SELECT ${REFUND_COLUMNS} FROM ${this.refunds} WHERE merchant_id = $1 AND environment = $2 AND idempotency_key = $3`, [
      scope.merchantId,
      scope.environment,
      key,
    ])) as RefundRow[];
    return rows[0] ? refund(rows[0]) : null;
  }

  async findRefund(manager: EntityManager, scope: Scope, id: string): Promise<StoredRefund | null> {
    const rows = (await manager.query(`SELECT ${REFUND_COLUMNS} FROM ${this.refunds} WHERE id = $1 AND merchant_id = $2 AND environment = $3`, [
      id,
      scope.merchantId,
      scope.environment,
    ])) as RefundRow[];
    return rows[0] ? refund(rows[0]) : null;
  }

  /** A refund by its id alone (the background check and the provider's answer name no merchant). */
  async findRefundById(manager: EntityManager, id: string): Promise<StoredRefund | null> {
    const rows = (await manager.query(`SELECT ${REFUND_COLUMNS} FROM ${this.refunds} WHERE id = $1`, [id])) as RefundRow[];
    return rows[0] ? refund(rows[0]) : null;
  }

  /**
   * Ends a pending refund with the provider's outcome, once: completed counts it as refunded; failed keeps the
   * provider's reason and gives its amount back to what remains of the payment. Answers the refund and its payment
   * after the change, or null when the refund was no longer pending (someone else ended it).
   */
  async resolve(
    manager: EntityManager,
    id: string,
    outcome: { status: 'completed' } | { status: 'failed'; reason: string },
    now: Date,
  ): Promise<{ refund: StoredRefund; payment: StoredPayment } | null> {
    const [rows] = (await manager.query(
      `UPDATE ${this.refunds} SET status = $2, failure_reason = $3, completed_at = $4, next_check_at = NULL
        WHERE id = $1 AND status = 'pending' RETURNING ${REFUND_COLUMNS}`,
      [id, outcome.status, outcome.status === 'failed' ? outcome.reason : null, outcome.status === 'completed' ? now : null],
    )) as [RefundRow[], number];
    const ended = rows[0];
    if (!ended) return null;
    const cents = Number(ended.amount_cents);
    const [paymentRows] = (await manager.query(
      `UPDATE ${this.payments} SET refunded_cents = refunded_cents + $2, reserved_cents = reserved_cents - $3 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
      [ended.payment_id, outcome.status === 'completed' ? cents : 0, outcome.status === 'failed' ? cents : 0],
    )) as [PaymentRow[], number];
    return { refund: refund(ended), payment: payment(paymentRows[0]!) };
  }

  /**
   * Pending refunds due for a check, each claimed until `leaseUntil` in the same statement, so another instance, or
   * the next run while this one is still asking, does not take it too. The claim is a short lease its owner renews
   * (extendClaims) while it asks, and the check ends it (postpone, resolve): an owner that dies leaves its refunds
   * due again once the lease runs out, not at their next turn minutes later.
   */
  async claimDue(manager: EntityManager, now: Date, limit: number, leaseUntil: Date): Promise<StoredRefund[]> {
    // Named: every instance asks every few seconds, nearly always for nothing, and unnamed it was planned each time.
    const rows = (await executePreparedIn(manager, {
      text: `UPDATE ${this.refunds} SET next_check_at = $3
        WHERE id IN (SELECT id FROM ${this.refunds} WHERE status = 'pending' AND next_check_at <= $1 ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${REFUND_COLUMNS}`,
      params: [now, limit, leaseUntil],
    })) as unknown as RefundRow[];
    return rows.map(refund);
  }

  /** Renews the claims on these pending refunds until `until`; a later next check (already postponed) stays. */
  async extendClaims(manager: EntityManager, ids: readonly string[], until: Date): Promise<void> {
    await manager.query(`UPDATE ${this.refunds} SET next_check_at = GREATEST(next_check_at, $2) WHERE id = ANY($1::text[]) AND status = 'pending'`, [ids, until]);
  }

  /** Asked about and still pending: its next check after 5 s, doubling, at most 5 min. */
  async postpone(manager: EntityManager, id: string, now: Date): Promise<void> {
    await manager.query(
      `UPDATE ${this.refunds} SET checks = checks + 1, next_check_at = $2::timestamptz + make_interval(secs => LEAST(5 * power(2, LEAST(checks, 10)), 300))
        WHERE id = $1 AND status = 'pending'`,
      [id, now],
    );
  }

  /** The refunds of these payments, oldest first. */
  async refundsOf(manager: EntityManager, paymentIds: readonly string[]): Promise<StoredRefund[]> {
    if (paymentIds.length === 0) return [];
    const rows = (await manager.query(`SELECT ${REFUND_COLUMNS} FROM ${this.refunds} WHERE payment_id = ANY($1::bigint[]) ORDER BY created_at, id`, [
      paymentIds,
    ])) as RefundRow[];
    return rows.map(refund);
  }

  /**
   * Newest first (paid_at, id), filtered (created = paid); `after` is the last item of the previous page (same
   * scope, checked by the caller). Each filter's conditions are literal SQL on indexed columns, so each shape of
   * query gets its own plan.
   */
  async listPayments(
    manager: EntityManager,
    scope: Scope,
    limit: number,
    after: StoredPayment | null,
    filter: ListFilterTerms = NO_FILTER,
    externalRef: string | null = null,
  ): Promise<{ items: StoredPayment[]; hasMore: boolean }> {
    const params: unknown[] = [scope.merchantId, scope.environment];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['merchant_id = $1', 'environment = $2'];
    if (after) where.push(`(paid_at, id) < (${param(after.paidAt)}::timestamptz, ${param(after.id)}::bigint)`);
    if (filter.status !== null) where.push(PAYMENT_STATUS_CONDITIONS[filter.status] ?? 'false');
    rangeConditions(filter, 'paid_at', where, param);
    if (externalRef !== null) where.push(`external_ref = ${param(externalRef)}`);
    const rows = (await manager.query(
      // p.id: the column (bigint, as the cursor compares it and the index orders it), not the text `id` selected.
      `SELECT ${PAYMENT_COLUMNS} FROM ${this.payments} p WHERE ${where.join(' AND ')} ORDER BY p.paid_at DESC, p.id DESC LIMIT ${param(limit + 1)}`,
      params,
    )) as PaymentRow[];
    return { items: rows.slice(0, limit).map(payment), hasMore: rows.length > limit };
  }

  /** Newest first, optionally of one payment, filtered; `after` as for listPayments. */
  async listRefunds(
    manager: EntityManager,
    scope: Scope,
    limit: number,
    after: StoredRefund | null,
    paymentId: string | null,
    filter: ListFilterTerms = NO_FILTER,
  ): Promise<{ items: StoredRefund[]; hasMore: boolean }> {
    const params: unknown[] = [scope.merchantId, scope.environment];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['merchant_id = $1', 'environment = $2'];
    if (after) where.push(`(created_at, id) < (${param(after.createdAt)}::timestamptz, ${param(after.id)}::text)`);
    if (paymentId !== null) where.push(`payment_id = ${param(paymentId)}::bigint`);
    if (filter.status !== null) where.push(`status = ${param(filter.status)}`);
    rangeConditions(filter, 'created_at', where, param);
    const rows = (await manager.query(
      `SELECT ${REFUND_COLUMNS} FROM ${this.refunds} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit + 1)}`,
      params,
    )) as RefundRow[];
    return { items: rows.slice(0, limit).map(refund), hasMore: rows.length > limit };
  }
}
