import { Logger } from '@nestjs/common';
import type { PaymentEventData, RefundEventData } from '@payments/contracts';
import type { EventEnvelope } from '@payments/events';
import { EventRefused, type MessageContext } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import { parseMoneyString } from '@payments/money';
import { bookPayment, bookRefund, BookingRefused, type Posting } from '../domain';
import type { JournalRepository } from '../journal/journal.repository';
import { bookingsRefused, postingsWritten } from '../shared/ledger-metrics';

/** The sessions events that complete a payment; each carries it in `data.payment`. */
const PAYMENT_EVENTS = new Set(['payment_intent.succeeded', 'invoice.paid']);
/** The refunds event that moves money back (created and failed move nothing). */
const REFUND_COMPLETED = 'refund.completed';
/** Every event type that books something; the consumer lets the others pass without a transaction. */
export const BOOKED_EVENT_TYPES: readonly string[] = [...PAYMENT_EVENTS, REFUND_COMPLETED];

interface Pending {
  postings: Posting[];
  /** The partition the transaction's events came from: the hot accounts' balance shard it writes. */
  shard: number;
}

/**
 * Books each payment sessions reports and each refund the refunds service completes, in the consumer's inbox
 * transaction: a re-delivered event finds its inbox row, and the posting's id (derived from the payment or the
 * refund) backs that up, so each posts once whatever arrives. An event whose amounts do not add up is refused
 * (dead-lettered with the reason, counted), never posted. `handle` books each event of a transaction;
 * `beforeCommit` writes them all in one statement.
 */
export class BookingEventsHandler {
  private readonly logger = new Logger('BookingEvents');
  /** Postings booked in each open transaction, by its EntityManager (dropped with it if the transaction fails). */
  private readonly pending = new WeakMap<EntityManager, Pending>();

  constructor(private readonly journal: JournalRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager, ctx: Pick<MessageContext, 'partition'>): Promise<void> {
    if (!PAYMENT_EVENTS.has(envelope.type) && envelope.type !== REFUND_COMPLETED) return;
    const booked = this.refused(() => (envelope.type === REFUND_COMPLETED ? this.bookRefund(envelope) : this.bookPayment(envelope)));
    const posting: Posting = { ...booked, correlationId: envelope.correlation_id };
    const pending = this.pending.get(manager);
    if (pending) pending.postings.push(posting);
    else this.pending.set(manager, { postings: [posting], shard: ctx.partition });
  }

  async beforeCommit(manager: EntityManager): Promise<void> {
    const pending = this.pending.get(manager);
    if (!pending) return;
    this.pending.delete(manager);
    const written = await this.journal.postAll(manager, pending.postings, pending.shard);
    for (const posting of written) postingsWritten.inc({ kind: posting.kind });
    if (written.length < pending.postings.length) {
      this.logger.debug({ booked: pending.postings.length, written: written.length }, 'payments already booked were skipped');
    }
  }

  private bookPayment(envelope: EventEnvelope): Posting {
    const data = envelope.data as { payment?: PaymentEventData };
    if (!data.payment) throw new BookingRefused('amount', `${envelope.type} ${envelope.id} carries no payment`);
    return bookPayment({
      eventId: envelope.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      source: envelope.aggregate_id,
      occurredAt: envelope.occurred_at,
      payment: data.payment,
    });
  }

  private bookRefund(envelope: EventEnvelope): Posting {
    // Checked against the refund events' schema when consumed.
    const { object: refund, payment } = envelope.data as unknown as RefundEventData;
    if (refund.currency !== 'USD') throw new BookingRefused('currency', `refund ${refund.id} is in ${String(refund.currency)}, the ledger books USD`);
    const amount = parseMoneyString(refund.amount, { minCents: 1 });
    if (!amount.ok) throw new BookingRefused('amount', `refund ${refund.id} amount ${JSON.stringify(refund.amount)} ${amount.message}`);
    return bookRefund({
      eventId: envelope.id,
      refundId: refund.id,
      paymentId: payment.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      amountCents: amount.cents,
      occurredAt: envelope.occurred_at,
    });
  }

  /** A booking the domain refuses is dead-lettered at once with its reason, and counted. */
  private refused(book: () => Posting): Posting {
    try {
      return book();
    } catch (error) {
      if (!(error instanceof BookingRefused)) throw error;
      bookingsRefused.inc({ reason: error.reason });
      throw new EventRefused(error.message);
    }
  }
}
