import type { SessionPaymentResource } from '@payments/contracts';
import { qualified, type SqlStatement } from '@payments/database';
import type { Environment } from '@payments/ids';
import { formatMoney } from '@payments/money';
import type { DataSource } from 'typeorm';
import type { PaymentRecord } from './payment-record';

interface PaymentRow {
  id: string;
  source_id: string;
  method: string;
  currency: 'USD';
  amount_cents: string;
  fee_cents: string;
  net_cents: string;
  paid_at: Date;
}

/** Payments made when an intent or invoice is paid (the numeric ids refunds address). */
export class PaymentsRepository {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'payments');
  }

  insertStatement(payment: PaymentRecord): SqlStatement {
    return {
      text: `INSERT INTO ${this.table}
         (id, merchant_id, environment, source_type, source_id, method, currency, amount_cents, fee_cents, net_cents, paid_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      params: [
        payment.id,
        payment.merchantId,
        payment.environment,
        payment.sourceType,
        payment.sourceId,
        payment.method,
        payment.currency,
        payment.amountCents,
        payment.feeCents,
        payment.netCents,
        payment.paidAt,
      ],
    };
  }

  /** One of the merchant's payments in the environment, or null (unknown, another merchant's, the other environment's). */
  async find(dataSource: DataSource, scope: { merchantId: string; environment: Environment }, id: string): Promise<SessionPaymentResource | null> {
    // Payment ids are positive 64-bit numbers: anything else names no payment (and must not reach a bigint cast).
    if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > 9223372036854775807n) return null;
    const rows = (await dataSource.query(
      `SELECT id::text, source_id, method, currency, amount_cents::text, fee_cents::text, net_cents::text, paid_at
         FROM ${this.table} WHERE id = $1 AND merchant_id = $2 AND environment = $3`,
      [id, scope.merchantId, scope.environment],
    )) as PaymentRow[];
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      source: row.source_id,
      method: row.method,
      amount: formatMoney(Number(row.amount_cents)),
      fee: formatMoney(Number(row.fee_cents)),
      net: formatMoney(Number(row.net_cents)),
      currency: row.currency,
      paid_at: row.paid_at.toISOString(),
    };
  }
}
