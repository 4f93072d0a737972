import { qualified, type SqlStatement } from '@payments/database';
import type { PaymentRecord } from './payment-record';

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
}
