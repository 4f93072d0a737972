// What each kind of money movement books. Pure: the handlers turn events and commands into these inputs.
import type { Environment } from '@payments/ids';
import { computeFee, DEFAULT_FEE_SCHEDULE, isFeeMethod, MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import { merchantAccount, platformAccount, walletAccount } from './accounts';
import { journalEntries, postingId, type Posting } from './posting';

/** A payment as sessions' `payment_intent.succeeded` / `invoice.paid` events carry it (`data.payment`). */
export interface PaymentBooking {
  readonly eventId: string;
  readonly merchantId: string;
  readonly environment: Environment;
  /** `pi_…` or `inv_…`. */
  readonly source: string;
  readonly occurredAt: string;
  readonly payment: {
    readonly id: string;
    readonly method: string;
    readonly amount: string;
    readonly fee: string;
    readonly net: string;
    readonly currency: string;
    readonly fee_rate_bps?: number;
  };
}

/** Why a payment cannot be booked as it is: never posted, parked for an operator with this reason. */
export class BookingRefused extends Error {
  constructor(readonly reason: 'currency' | 'amount' | 'method' | 'fee_mismatch' | 'wallet_not_debited', detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'BookingRefused';
  }
}

function cents(value: string, field: string, minCents: number): number {
  // A payment's bound, not a session's: a crypto payment over-paid past what a session may ask is still booked.
  const parsed = parseMoneyString(value, { minCents, maxCents: MAX_PAYMENT_CENTS });
  if (!parsed.ok) throw new BookingRefused('amount', `payment ${field} ${JSON.stringify(value)} ${parsed.message}`);
  return parsed.cents;
}

/** A payment's amounts in cents, as checked: amount = fee + net, the fee at its rate (half-up to the cent). */
export interface PaymentAmounts {
  readonly amountCents: number;
  readonly feeCents: number;
  readonly netCents: number;
  readonly rateBps: number;
}

/**
 * The amounts a payment carries, checked: USD, a method with a fee rate, the fee recomputed from the amount and
 * the rate the session charged (the method's default rate when none is carried); any disagreement refuses it.
 */
export function checkedPaymentAmounts(payment: PaymentBooking['payment']): PaymentAmounts {
  if (payment.currency !== 'USD') throw new BookingRefused('currency', `payment ${payment.id} is in ${payment.currency}, the ledger books USD`);
  if (!isFeeMethod(payment.method)) throw new BookingRefused('method', `payment ${payment.id} has no fee rate for method ${payment.method}`);
  const amountCents = cents(payment.amount, 'amount', 1);
  const feeCents = cents(payment.fee, 'fee', 0);
  const netCents = cents(payment.net, 'net', 0);
  const rateBps = payment.fee_rate_bps ?? DEFAULT_FEE_SCHEDULE[payment.method];
  const expectedFee = computeFee(amountCents, rateBps);
  if (feeCents !== expectedFee || netCents !== amountCents - expectedFee) {
    throw new BookingRefused(
      'fee_mismatch',
      `payment ${payment.id}: ${payment.amount} at ${rateBps} bp is fee ${expectedFee} cents and net ${amountCents - expectedFee}, the event says fee ${payment.fee} and net ${payment.net}`,
    );
  }
  return { amountCents, feeCents, netCents, rateBps };
}

/**
 * Payment succeeded: clearing is debited with the gross, the merchant's available credited with the net and fee
 * revenue with the fee (amounts as checkedPaymentAmounts checks them).
 */
export function bookPayment(booking: PaymentBooking): Posting {
  const { payment, environment } = booking;
  const { amountCents, feeCents, netCents } = checkedPaymentAmounts(payment);
  return {
    id: postingId(`payment:${payment.id}`),
    kind: 'payment',
    merchantId: booking.merchantId,
    environment,
    source: booking.source,
    paymentId: payment.id,
    amountCents,
    feeCents,
    netCents,
    entries: journalEntries(environment, [
      { account: platformAccount('clearing', environment), amountCents: amountCents },
      { account: merchantAccount(booking.merchantId, environment), amountCents: -netCents },
      { account: platformAccount('fee_revenue', environment), amountCents: -feeCents },
    ]),
    eventId: booking.eventId,
    description: null,
    occurredAt: booking.occurredAt,
  };
}

/**
 * A completed refund: the merchant's available is debited, clearing credited; fees are not returned. A refund of a
 * wallet payment (`walletId`: the payment's posting debited that wallet) credits the wallet instead, at once.
 */
export function bookRefund(refund: {
  readonly eventId: string;
  readonly refundId: string;
  readonly paymentId: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly occurredAt: string;
  readonly walletId?: string | null;
}): Posting {
  const { environment } = refund;
  const walletId = refund.walletId ?? null;
  const returnedTo = walletId ? walletAccount(walletId, environment) : platformAccount('clearing', environment);
  return {
    id: postingId(`refund:${refund.refundId}`),
    kind: 'refund',
    merchantId: refund.merchantId,
    environment,
    source: refund.refundId,
    paymentId: refund.paymentId,
    amountCents: refund.amountCents,
    feeCents: 0,
    netCents: -refund.amountCents,
    entries: journalEntries(environment, [
      { account: merchantAccount(refund.merchantId, environment), amountCents: refund.amountCents },
      { account: returnedTo, amountCents: -refund.amountCents },
    ]),
    walletId,
    eventId: refund.eventId,
    description: null,
    occurredAt: refund.occurredAt,
  };
}

/** An operator's correction: positive credits the merchant, negative debits it; the other side is the adjustments account. */
export function bookAdjustment(adjustment: {
  readonly key: string;
  readonly merchantId: string;
  readonly environment: Environment;
  readonly amountCents: number;
  readonly reason: string;
  readonly occurredAt: string;
}): Posting {
  const { environment } = adjustment;
  return {
    id: postingId(`adjustment:${adjustment.merchantId}:${environment}:${adjustment.key}`),
    kind: 'adjustment',
    merchantId: adjustment.merchantId,
    environment,
    source: adjustment.key,
    paymentId: null,
    amountCents: adjustment.amountCents,
    feeCents: 0,
    netCents: adjustment.amountCents,
    entries: journalEntries(environment, [
      { account: merchantAccount(adjustment.merchantId, environment), amountCents: -adjustment.amountCents },
      { account: platformAccount('adjustments', environment), amountCents: adjustment.amountCents },
    ]),
    eventId: null,
    description: adjustment.reason,
    occurredAt: adjustment.occurredAt,
  };
}
