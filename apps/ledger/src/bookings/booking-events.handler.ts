import { Logger } from '@nestjs/common';
import type { PaymentEventData, RefundEventData } from '@payments/contracts';
import { PAID_EVENT_TYPES, type EventEnvelope } from '@payments/events';
import { EventRefused, WALLET_PAYMENT_HEADER, type MessageContext } from '@payments/messaging';
import type { EntityManager } from 'typeorm';
import { MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import { bookPayment, bookRefund, BookingRefused, checkedPaymentAmounts, postingId, walletAccount, type Posting } from '../domain';
import type { JournalRepository } from '../journal/journal.repository';
import { bookingsRefused, postingsWritten } from '../shared/ledger-metrics';

/** A completed refund, checked; its posting is built before commit, once its payment's wallet (if any) is known. */
type RefundInput = Parameters<typeof bookRefund>[0];

/** The sessions events that complete a payment; each carries it in `data.payment`. */
const PAYMENT_EVENTS = new Set(PAID_EVENT_TYPES);
/** The refunds event that moves money back (created and failed move nothing). */
const REFUND_COMPLETED = 'refund.completed';
/** Every event type that books something; the consumer lets the others pass without a transaction. */
export const BOOKED_EVENT_TYPES: readonly string[] = [...PAYMENT_EVENTS, REFUND_COMPLETED];

/**
 * A payment event its producer marked as paid from a wallet: wallets.pay posted it by command before the session
 * succeeded, so there is nothing to book and the consumer passes over it unread, with no transaction. Sessions'
 * payments are compared with their wallet debits by `ledger check` instead (see docs/decisions.md). An event
 * without the mark (written before it existed, or by another producer) still goes through walletPaymentSucceeded.
 */
export function walletPaymentPassedOver(headers: Readonly<Record<string, string>>): boolean {
  return headers[WALLET_PAYMENT_HEADER] === 'true' && PAYMENT_EVENTS.has(headers['event-type'] ?? '');
}

interface Pending {
  /** Payments booked from clearing, and refunds waiting for their payment's wallet, in the order of their events. */
  bookings: Array<{ posting: Posting } | { refund: RefundInput; correlationId: string | null }>;
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
    let booking: Pending['bookings'][number];
    if (envelope.type === REFUND_COMPLETED) {
      booking = { refund: this.refused(() => this.checkRefund(envelope)), correlationId: envelope.correlation_id };
    } else {
      const payment = this.refused(() => paymentOf(envelope));
      // Paid from a wallet: wallets.pay posted it (wallet debited) before the session succeeded; booking it again
      // from clearing would make money out of nothing. Verified, and the session's success recorded, here.
      if (payment.wallet_id) return this.walletPaymentSucceeded(envelope, payment, manager);
      booking = { posting: { ...this.refused(() => this.bookPayment(envelope, payment)), correlationId: envelope.correlation_id } };
    }
    const pending = this.pending.get(manager);
    if (pending) pending.bookings.push(booking);
    else this.pending.set(manager, { bookings: [booking], shard: ctx.partition });
  }

  async beforeCommit(manager: EntityManager): Promise<void> {
    const pending = this.pending.get(manager);
    if (!pending) return;
    this.pending.delete(manager);
    // One look-up for every refund of the transaction: which of their payments were paid from a wallet.
    const refunds = pending.bookings.flatMap((b) => ('refund' in b ? [b.refund] : []));
    const wallets = refunds.length > 0 ? await this.walletsOfPayments(manager, refunds) : new Map<string, string>();
    const postings = pending.bookings.map((b) =>
      'posting' in b ? b.posting : { ...bookRefund({ ...b.refund, walletId: wallets.get(b.refund.paymentId) ?? null }), correlationId: b.correlationId },
    );
    // Wallets credited back are locked before any other balance row, as every wallet writer does (no deadlock
    // with a payment holding the wallet while it waits for the merchant's row).
    const walletAccounts = postings.flatMap((p) => (p.walletId ? [walletAccount(p.walletId, p.environment).id] : []));
    await this.journal.lockWallets(manager, walletAccounts);
    const written = await this.journal.postAll(manager, postings, pending.shard);
    for (const posting of written) postingsWritten.inc({ kind: posting.kind });
    if (written.length < postings.length) {
      this.logger.debug({ booked: postings.length, written: written.length }, 'payments already booked were skipped');
    }
  }

  /**
   * The wallet each refund's payment was debited from, by payment id: the payment's posting of the same merchant
   * and environment naming a wallet. A payment not booked (yet) or not paid from a wallet goes back to clearing.
   */
  private async walletsOfPayments(manager: EntityManager, refunds: readonly RefundInput[]): Promise<Map<string, string>> {
    const rows = (await manager.query(
      `SELECT p.payment_id, p.merchant_id, p.environment, p.wallet_id FROM ${this.journal.table('postings')} p
       WHERE p.kind = 'payment' AND p.payment_id = ANY($1::text[]) AND p.wallet_id IS NOT NULL`,
      [[...new Set(refunds.map((r) => r.paymentId))]],
    )) as Array<{ payment_id: string; merchant_id: string; environment: string; wallet_id: string }>;
    const wallets = new Map<string, string>();
    for (const refund of refunds) {
      const row = rows.find((r) => r.payment_id === refund.paymentId && r.merchant_id === refund.merchantId && r.environment === refund.environment);
      if (row) wallets.set(refund.paymentId, row.wallet_id);
    }
    return wallets;
  }

  /**
   * A session paid from a wallet succeeded: its posting (wallet debited) must already be in the journal with the
   * event's wallet, merchant and amounts; the success is recorded for ledger check. Without it the payment is a
   * defect upstream: refused (dead-lettered, counted), never booked from clearing.
   */
  private async walletPaymentSucceeded(envelope: EventEnvelope, payment: PaymentEventData, manager: EntityManager): Promise<void> {
    const amounts = this.refused(() => checkedPaymentAmounts(payment));
    const [posted] = (await manager.query(
      `WITH posting AS (
         SELECT id FROM ${this.journal.table('postings')}
         WHERE id = $1 AND kind = 'payment' AND payment_id = $2 AND wallet_id = $3 AND merchant_id = $4 AND environment = $5
           AND amount_cents = $6 AND fee_cents = $7 AND net_cents = $8),
       recorded AS (
         INSERT INTO ${this.journal.table('wallet_payment_sessions')} (payment_id, wallet_id, environment, merchant_id, source, event_id)
         SELECT $2, $3, $5, $4, $9, $10 FROM posting
         ON CONFLICT (payment_id) DO NOTHING)
       SELECT id FROM posting`,
      [
        postingId(`payment:${payment.id}`),
        payment.id,
        payment.wallet_id,
        envelope.merchant_id,
        envelope.environment,
        amounts.amountCents,
        amounts.feeCents,
        amounts.netCents,
        envelope.aggregate_id,
        envelope.id,
      ],
    )) as Array<{ id: string }>;
    if (!posted) {
      this.refused(() => {
        throw new BookingRefused(
          'wallet_not_debited',
          `payment ${payment.id} (${envelope.aggregate_id}) says it was paid from wallet ${String(payment.wallet_id)}, and the ledger holds no such wallet debit of its merchant and amounts`,
        );
      });
    }
  }

  private bookPayment(envelope: EventEnvelope, payment: PaymentEventData): Posting {
    return bookPayment({
      eventId: envelope.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      source: envelope.aggregate_id,
      occurredAt: envelope.occurred_at,
      payment,
    });
  }

  private checkRefund(envelope: EventEnvelope): RefundInput {
    // Checked against the refund events' schema when consumed.
    const { object: refund, payment } = envelope.data as unknown as RefundEventData;
    if (refund.currency !== 'USD') throw new BookingRefused('currency', `refund ${refund.id} is in ${String(refund.currency)}, the ledger books USD`);
    const amount = parseMoneyString(refund.amount, { minCents: 1, maxCents: MAX_PAYMENT_CENTS });
    if (!amount.ok) throw new BookingRefused('amount', `refund ${refund.id} amount ${JSON.stringify(refund.amount)} ${amount.message}`);
    return {
      eventId: envelope.id,
      refundId: refund.id,
      paymentId: payment.id,
      merchantId: envelope.merchant_id,
      environment: envelope.environment,
      amountCents: amount.cents,
      occurredAt: envelope.occurred_at,
    };
  }

  /** A booking the domain refuses is dead-lettered at once with its reason, and counted. */
  private refused<T>(book: () => T): T {
    try {
      return book();
    } catch (error) {
      if (!(error instanceof BookingRefused)) throw error;
      bookingsRefused.inc({ reason: error.reason });
      throw new EventRefused(error.message);
    }
  }
}

function paymentOf(envelope: EventEnvelope): PaymentEventData {
  const data = envelope.data as { payment?: PaymentEventData };
  if (!data.payment) throw new BookingRefused('amount', `${envelope.type} ${envelope.id} carries no payment`);
  return data.payment;
}
