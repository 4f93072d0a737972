// What the checkout shows for a session: which page, with what. Pure: the controller brings the session (as
// sessions renders it, expiry applied) and the merchant's name.
import type { CheckoutSession } from '@payments/contracts';

export interface SessionSummary {
  id: string;
  merchantName: string;
  amount: string;
  currency: string;
  description: string | null;
  /** The payment's id once paid. */
  reference: string | null;
  expiresAt: string;
  /** Crypto transfers so far (MoneyStrings), once any arrived. */
  crypto: { received: string; remaining: string; overpayment: string } | null;
}

export type CheckoutView =
  | { page: 'pay'; summary: SessionSummary; test: boolean; methods: string[]; declined: boolean; cancellable: boolean }
  | { page: 'paid' | 'expired' | 'cancelled' | 'failed' | 'processing'; summary: SessionSummary }
  | { page: 'not_found' | 'unavailable' };

export function checkoutView(found: CheckoutSession, merchantName: string, declined: boolean): CheckoutView {
  const s = found.session;
  const summary: SessionSummary = {
    id: s.id,
    merchantName,
    amount: s.amount,
    currency: s.currency,
    description: s.description ?? null,
    reference: found.kind === 'payment_intent' ? found.session.payment_id : (found.session.payment?.reference ?? null),
    expiresAt: s.expires_at,
    crypto: found.kind === 'payment_intent' && found.session.crypto.received_amount !== '0.00'
      ? { received: found.session.crypto.received_amount, remaining: found.session.crypto.remaining_amount, overpayment: found.session.crypto.overpayment_amount }
      : null,
  };
  const methods = found.kind === 'payment_intent' ? found.session.available_methods : found.methods;
  const pay = (wasDeclined: boolean): CheckoutView => ({
    page: 'pay',
    summary,
    test: found.environment === 'test',
    methods: [...methods],
    declined: wasDeclined,
    // An intent can be cancelled; an invoice has nothing to cancel, the customer is only sent back if it says where.
    cancellable: found.kind === 'payment_intent' || found.cancel_url !== null,
  });
  switch (s.status) {
    case 'requires_payment_method':
    case 'pending':
      return pay(declined);
    // A declined payment may be tried again until the session expires.
    case 'failed':
      return pay(true);
    // Part of a crypto payment arrived: the customer can send the rest (the intent is processing, not cancellable).
    case 'processing':
      if (found.kind === 'payment_intent' && found.session.payment_method === 'crypto' && summary.crypto) {
        return { page: 'pay', summary, test: found.environment === 'test', methods: ['crypto'], declined: false, cancellable: false };
      }
      return { page: 'processing', summary };
    case 'succeeded':
    case 'paid':
      return { page: 'paid', summary };
    case 'cancelled':
      return { page: 'cancelled', summary };
    case 'expired':
      return { page: 'expired', summary };
    default:
      return { page: 'failed', summary };
  }
}
