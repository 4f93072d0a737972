import { Logger } from '@nestjs/common';
import type { PaymentEventData } from '@payments/contracts';
import type { EventEnvelope } from '@payments/events';
import { EventRefused, type MessageContext } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import { bookPayment, BookingRefused, type Posting } from '../domain';
import type { JournalRepository } from '../journal/journal.repository';
import { bookingsRefused, postingsWritten } from '../shared/ledger-metrics';

/** The sessions events that complete a payment; each carries it in `data.payment`. */
const PAYMENT_EVENTS = new Set(['payment_intent.succeeded', 'invoice.paid']);

interface Pending {
  postings: Posting[];
  /** The partition the transaction's events came from: the hot accounts' balance shard it writes. */
  shard: number;
}

/**
 * Books each payment sessions reports, in the consumer's inbox transaction: a re-delivered event finds its inbox
 * row, and the posting's id (derived from the payment) backs that up, so a payment posts once whatever arrives.
 * A payment whose amounts do not add up is refused (dead-lettered with the reason, counted), never posted.
 * `handle` books each event of a transaction; `beforeCommit` writes them all in one statement.
 */
export class PaymentEventsHandler {
  private readonly logger = new Logger('PaymentEvents');
  /** Postings booked in each open transaction, by its EntityManager (dropped with it if the transaction fails). */
  private readonly pending = new WeakMap<EntityManager, Pending>();

  constructor(private readonly journal: JournalRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager, ctx: Pick<MessageContext, 'partition'>): Promise<void> {
    if (!PAYMENT_EVENTS.has(envelope.type)) return;
    const posting = this.book(envelope);
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

  private book(envelope: EventEnvelope): Posting {
    const data = envelope.data as { payment?: PaymentEventData };
    try {
      if (!data.payment) throw new BookingRefused('amount', `${envelope.type} ${envelope.id} carries no payment`);
      return bookPayment({
        eventId: envelope.id,
        merchantId: envelope.merchant_id,
        environment: envelope.environment,
        source: envelope.aggregate_id,
        occurredAt: envelope.occurred_at,
        payment: data.payment,
      });
    } catch (error) {
      if (!(error instanceof BookingRefused)) throw error;
      bookingsRefused.inc({ reason: error.reason });
      throw new EventRefused(error.message);
    }
  }
}
