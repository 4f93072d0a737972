import type { PaymentEventData } from '@payments/contracts';
import { PAID_EVENT_TYPES, type EventEnvelope } from '@payments/events';
import { EventRefused } from '@payments/messaging';
import { MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import type { SqlStatement } from '@payments/database';
import type { EntityManager } from 'typeorm';
import type { NewPayment, RefundsRepository } from '../refunds/refunds.repository';

/** The sessions events that complete a payment; each carries it in `data.payment` (the only ones this service keeps). */
const PAYMENT_EVENTS = new Set(PAID_EVENT_TYPES);

function cents(value: unknown, field: string, minCents: number): number {
  const parsed = parseMoneyString(value, { minCents, maxCents: MAX_PAYMENT_CENTS });
  if (!parsed.ok) throw new EventRefused(`payment ${field} ${JSON.stringify(value)} ${parsed.message}`);
  return parsed.cents;
}

/**
 * Keeps this service's copy of every payment sessions makes (what refunds are taken from), in the consumer's
 * inbox transaction. A payment already recorded (asked of sessions by a refund that came first) is left as it is.
 * `handle` checks each event of a run; `claimedWrites` writes their payments in the statement of the consumer's
 * inbox claim (at ordinary rates a run carries the payments of its 100 ms linger: one statement for all of them,
 * no transaction around it); `beforeCommit` does the same inside a caller's transaction.
 */
export class PaymentEventsHandler {
  /**
   * Payments of each open run, by id, with the events that brought them, by its EntityManager (dropped with it if
   * the run fails).
   */
  private readonly pending = new WeakMap<EntityManager, Map<string, { payment: NewPayment; eventIds: string[] }>>();

  constructor(private readonly repository: RefundsRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager): Promise<void> {
    if (!PAYMENT_EVENTS.has(envelope.type)) return;
    const data = envelope.data as { payment?: PaymentEventData; object?: { paid_at?: string | null; external_ref?: string | null } };
    const payment = data.payment;
    if (!payment) throw new EventRefused(`${envelope.type} ${envelope.id} carries no payment`);
    if (payment.currency !== 'USD') throw new EventRefused(`payment ${payment.id} is in ${String(payment.currency)}`);
    const recorded: NewPayment = {
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
    };
    let pending = this.pending.get(manager);
    if (!pending) this.pending.set(manager, (pending = new Map()));
    // The same payment twice in one transaction (one statement may not touch a row twice): the first is kept, as
    // the row would be, with an external_ref a later one brings.
    const first = pending.get(recorded.id);
    pending.set(
      recorded.id,
      first
        ? { payment: { ...first.payment, externalRef: first.payment.externalRef ?? recorded.externalRef }, eventIds: [...first.eventIds, envelope.id] }
        : { payment: recorded, eventIds: [envelope.id] },
    );
  }

  /** The run's payments as writes made with the inbox claim (see ClaimedWrites). */
  claimedWrites(manager: EntityManager): SqlStatement | null {
    const payments = this.taken(manager);
    return payments ? this.repository.paymentsWrites(payments, { onlyClaimed: true }) : null;
  }

  async beforeCommit(manager: EntityManager): Promise<void> {
    const payments = this.taken(manager);
    if (payments) await this.repository.addPayments(manager, payments);
  }

  /** The run's payments, one row per event that brought one; forgotten here once taken. */
  private taken(manager: EntityManager): Array<{ payment: NewPayment; eventId: string }> | null {
    const pending = this.pending.get(manager);
    if (!pending) return null;
    this.pending.delete(manager);
    return [...pending.values()].flatMap(({ payment, eventIds }) => eventIds.map((eventId) => ({ payment, eventId })));
  }
}
