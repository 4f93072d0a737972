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

/**
 * Books each payment sessions reports, in the consumer's inbox transaction: a re-delivered event finds its inbox
 * row, and the posting's id (derived from the payment) backs that up, so a payment posts once whatever arrives.
 * A payment whose amounts do not add up is refused (dead-lettered with the reason, counted), never posted.
 */
export class PaymentEventsHandler {
  private readonly logger = new Logger('PaymentEvents');

  constructor(private readonly journal: JournalRepository) {}

  async handle(envelope: EventEnvelope, manager: EntityManager, ctx: Pick<MessageContext, 'partition'>): Promise<boolean> {
    if (!PAYMENT_EVENTS.has(envelope.type)) return false;
    const posting = this.book(envelope);
    const posted = await this.journal.post(manager, posting, ctx.partition);
    if (posted) postingsWritten.inc({ kind: posting.kind });
    else this.logger.debug({ eventId: envelope.id, postingId: posting.id }, 'payment already booked');
    return posted;
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
