// The spec's PaymentIntent JSON, plus payment_id (null until paid), description and metadata, which DESIGN adds.
// Nothing else: the shape is the contract's PaymentIntentResource.
import type { PaymentIntentResource } from '@payments/contracts';
import { formatMoney } from '@payments/money';
import { checkoutUrl } from './checkout-url';
import type { PaymentIntentState } from './payment-intent.aggregate';
import { PaymentIntent } from './payment-intent.aggregate';

export type { PaymentIntentResource };

export interface PaymentIntentResourceOptions {
  /** Public base address of the checkout pages, e.g. PUBLIC_BASE_URL. */
  readonly checkoutBaseUrl: string;
  /** Read time: decides whether a non-final intent already shows as expired. */
  readonly now: Date;
}

export function toPaymentIntentResource(state: PaymentIntentState, options: PaymentIntentResourceOptions): PaymentIntentResource {
  const paid = state.status === 'succeeded';
  const { crypto } = state;
  return {
    id: state.id,
    object: 'payment_intent',
    status: PaymentIntent.fromState(state).effectiveStatus(options.now),
    amount: formatMoney(state.amountCents),
    currency: state.currency,
    fee: formatMoney(paid ? state.feeCents : 0),
    net_amount: formatMoney(paid ? state.netCents : state.amountCents),
    payment_method: state.paymentMethod,
    external_ref: state.externalRef,
    paid,
    available_methods: [...state.methods],
    checkout_url: checkoutUrl(options.checkoutBaseUrl, state.id),
    crypto: {
      address: crypto.address,
      requested_amount: formatMoney(crypto.requestedCents),
      received_amount: formatMoney(crypto.receivedCents),
      remaining_amount: formatMoney(crypto.remainingCents),
      overpayment_amount: formatMoney(crypto.overpaymentCents),
      txid: crypto.txid,
    },
    created_at: state.createdAt,
    expires_at: state.expiresAt,
    paid_at: paid ? state.paidAt : null,
    payment_id: paid ? state.paymentId : null,
    description: state.description,
    metadata: state.metadata,
  };
}

export { paymentIntentResourceAt } from '@payments/contracts';
