import type { PaymentEventData } from '@payments/contracts';
import type { EventEnvelope } from '@payments/events';
import { EventRefused } from '@payments/messaging';
import { parseMoneyString } from '@payments/money';
import type { EntityManager } from 'typeorm';
import type { RefundsRepository } from '../refunds/refunds.repository';

/** The sessions events that complete a payment; each carries it in `data.payment` (the only ones this service keeps). */
const PAYMENT_EVENTS = new Set(['payment_intent.succeeded', 'invoice.paid']);
/** The consumer's event types: the others pass without a transaction. */
export const PAYMENT_EVENT_TYPES: readonly string[] = [...PAYMENT_EVENTS];

function cents(value: unknown, field: string, minCents: number): number {
  const parsed = parseMoneyString(value, { minCents });
  if (!parsed.ok) throw new EventRefused(`payment ${field} ${JSON.stringify(value)} ${parsed.message}`);
  return parsed.cents;
}

/**
 * Keeps this service's copy of every payment sessions makes (what refunds are taken from), in the consumer's
 * inbox transaction. A payment already recorded (asked of sessions by a refund that came first) is left as it is.
 */
export class PaymentEventsHandler {
  constructor(private readonly repository: RefundsRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<void> {
    if (!PAYMENT_EVENTS.has(envelope.type)) return;
    const data = envelope.data as { payment?: PaymentEventData; object?: { paid_at?: string | null; external_ref?: string | null } };
    const payment = data.payment;
    if (!payment) throw new EventRefused(`${envelope.type} ${envelope.id} carries no payment`);
    if (payment.currency !== 'USD') throw new EventRefused(`payment ${payment.id} is in ${String(payment.currency)}`);
    await this.repository.addPayment(manager, {
      id: payment.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      source: envelope.aggregate_id,
      method: payment.method,
      currency: 'USD',
      amountCents: cents(payment.amount, 'amount', 1),
      feeCents: cents(payment.fee, 'fee', 0),
      netCents: cents(payment.net, 'net', 0),
      paidAt: new Date(data.object?.paid_at ?? envelope.occurred_at),
      externalRef: typeof data.object?.external_ref === 'string' ? data.object.external_ref : null,
    });
  }
}
