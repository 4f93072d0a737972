// What a refund may be and how it completes. Pure: the handlers bring the payment's figures from the database.
import type { PaymentStatus } from '@payments/contracts';
import type { Environment } from '@payments/ids';

/** Methods whose money the service holds itself: a refund of them is a book entry, complete at once. */
const BALANCE_METHODS: ReadonlySet<string> = new Set(['togo', 'wallet']);

/** Methods whose provider takes refunds through its adapter (in sessions, which owns the provider). */
const PROVIDER_REFUND_METHODS: ReadonlySet<string> = new Set(['lahza']);

/**
 * How a refund of this payment completes: at once (test mode moves no money; service-balance payments are returned
 * by the service itself), through the provider that took the payment (pending until it says), or not at all yet
 * (a live method whose provider takes no refunds here yet: crypto).
 */
export function settlementOf(payment: { readonly environment: Environment; readonly method: string }): 'at_once' | 'provider' | 'unavailable' {
  if (payment.environment === 'test' || BALANCE_METHODS.has(payment.method)) return 'at_once';
  return PROVIDER_REFUND_METHODS.has(payment.method) ? 'provider' : 'unavailable';
}

/** A payment's status from its completed refunds. */
export function paymentStatus(amountCents: number, refundedCents: number): PaymentStatus {
  if (refundedCents <= 0) return 'succeeded';
  return refundedCents >= amountCents ? 'refunded' : 'partially_refunded';
}

/**
 * Whether the refund an Idempotency-Key already made is the one a request asks for: the same payment, and the
 * amount and reason the request gives (a request that leaves one out takes what the refund has). Otherwise the
 * key is being reused for another refund: refused, never answered with the earlier refund as if it were this one.
 */
export function isSameRefundRequest(
  made: { readonly paymentId: string; readonly amountCents: number; readonly reason: string | null },
  request: { readonly paymentId: string; readonly amountCents: number | null; readonly reason: string | undefined },
): boolean {
  return (
    BigInt(made.paymentId) === BigInt(request.paymentId) &&
    (request.amountCents === null || request.amountCents === made.amountCents) &&
    (request.reason === undefined || request.reason === made.reason)
  );
}

/** Why a refund is refused; the edge maps each to the API's error. */
export class RefundRefused extends Error {
  constructor(
    readonly reason: 'exceeds_payment' | 'provider_unavailable',
    message: string,
    /** For exceeds_payment: what remains of the payment. */
    readonly remainingCents = 0,
  ) {
    super(message);
    this.name = 'RefundRefused';
  }
}
