import type { PaymentResource, RefundEventData, RefundResource } from '@payments/contracts';
import { formatMoney } from '@payments/money';
import { paymentStatus } from '../domain';
import type { StoredPayment, StoredRefund } from './refunds.repository';

export function refundResource(refund: StoredRefund): RefundResource {
  return {
    id: refund.id,
    object: 'refund',
    payment_id: refund.paymentId,
    amount: formatMoney(refund.amountCents),
    currency: refund.currency,
    reason: refund.reason,
    status: refund.status,
    failure_reason: refund.failureReason,
    environment: refund.environment,
    created_at: refund.createdAt.toISOString(),
    completed_at: refund.completedAt ? refund.completedAt.toISOString() : null,
  };
}

export function paymentResource(payment: StoredPayment, refunds: readonly StoredRefund[]): PaymentResource {
  return {
    id: payment.id,
    object: 'payment',
    amount: formatMoney(payment.amountCents),
    refunded_amount: formatMoney(payment.refundedCents),
    currency: payment.currency,
    status: paymentStatus(payment.amountCents, payment.refundedCents),
    source: payment.source,
    method: payment.method,
    fee: formatMoney(payment.feeCents),
    net: formatMoney(payment.netCents),
    environment: payment.environment,
    created_at: payment.paidAt.toISOString(),
    refunds: refunds.map(refundResource),
  };
}

/** What each refund event carries: the refund and the payment it returns money from. */
export function refundEventData(refund: StoredRefund, payment: StoredPayment): RefundEventData {
  return {
    object: refundResource(refund),
    payment: { id: payment.id, source: payment.source, method: payment.method, amount: formatMoney(payment.amountCents), currency: payment.currency },
  };
}
