import type { RefundEventData } from '@payments/contracts';
import { newEnvelope, type EventEnvelope } from '@payments/events';
import { refundEventData } from './refund-views';
import type { StoredPayment, StoredRefund } from './refunds.repository';

export type RefundEventType = 'refund.created' | 'refund.completed' | 'refund.failed';

/**
 * A refund's event: created is its first, completed or failed its second and last (keyed by the refund id).
 * `causationId` names the command that caused it (null for the background check, which no command asked for).
 */
export function refundEvent(
  type: RefundEventType,
  refund: StoredRefund,
  payment: StoredPayment,
  correlationId: string,
  occurredAt: Date,
  causationId: string | null,
): EventEnvelope<RefundEventData> {
  return newEnvelope({
    type,
    sequence: type === 'refund.created' ? 1 : 2,
    aggregate_id: refund.id,
    aggregate_type: 'refund',
    merchant_id: refund.merchantId,
    environment: refund.environment,
    correlation_id: correlationId,
    causation_id: causationId,
    occurred_at: occurredAt,
    data: refundEventData(refund, payment),
  });
}
