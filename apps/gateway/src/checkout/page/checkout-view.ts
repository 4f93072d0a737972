// What the checkout shows for a session: which page, with what. Pure: the controller brings the session (as
// sessions renders it, expiry applied) and the merchant's name.
import { centsToTokenUnits } from '@payments/chain';
import type { CheckoutSession } from '@payments/contracts';
import { parseMoneyString } from '@payments/money';
import type { CryptoDeposit, CryptoOption } from './crypto-deposit';

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
  /** Paid after the link had expired (a provider confirmed it late): recorded all the same. */
  late: boolean;
  /** The intent has a crypto deposit address: a transfer may still arrive after expiry (and is recorded). */
  depositAddress?: boolean;
}

/** What the page says above the methods after the customer's last try. */
export type PayNotice = 'declined' | 'provider_unavailable' | null;

export type CheckoutView =
  | {
      page: 'pay';
      summary: SessionSummary;
      test: boolean;
      methods: string[];
      providerMethods: string[];
      notice: PayNotice;
      cancellable: boolean;
      /** The crypto sandbox's partial and over-payments: intents record transfers, invoices are paid whole. */
      cryptoTransfers: boolean;
      /** The networks + tokens of a live chain (crypto configured for the environment), in place of the sandbox; else null. */
      cryptoOptions?: readonly CryptoOption[] | null;
    }
  /** Where to send the crypto payment (the session has its deposit address), until the transfer is confirmed. */
  | { page: 'crypto'; summary: SessionSummary; deposit: CryptoDeposit }
  | { page: 'processing'; summary: SessionSummary; continueWith: string | null }
  | { page: 'paid' | 'expired' | 'cancelled' | 'failed'; summary: SessionSummary }
  | { page: 'not_found' | 'unavailable' }
  /** A wallet form refused (token, origin, sign-in ended): nothing was done; `back` leads to the page it came from. */
  | { page: 'refused'; back: string };

export function checkoutView(found: CheckoutSession, merchantName: string, notice: PayNotice, cryptoOptions: readonly CryptoOption[] | null = null): CheckoutView {
  const s = found.session;
  const paidAt = s.paid_at;
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
    late: typeof paidAt === 'string' && Date.parse(paidAt) >= Date.parse(s.expires_at),
    // A live chain's address (a sandbox address gets no transfer after expiry).
    depositAddress: found.kind === 'payment_intent' && found.session.crypto.address !== null && (found.crypto_options ?? []).length > 0,
  };
  const methods = found.kind === 'payment_intent' ? found.session.available_methods : found.methods;
  const providerMethods = (found.provider_methods ?? []).filter((method) => methods.includes(method as never));
  const pay = (shown: PayNotice): CheckoutView => ({
    page: 'pay',
    summary,
    test: found.environment === 'test',
    methods: [...methods],
    providerMethods,
    notice: shown,
    // An intent can be cancelled; an invoice has nothing to cancel, the customer is only sent back if it says where.
    cancellable: found.kind === 'payment_intent' || found.cancel_url !== null,
    cryptoTransfers: found.kind === 'payment_intent',
    cryptoOptions: found.kind === 'payment_intent' ? cryptoOptions : null,
  });
  switch (s.status) {
    case 'requires_payment_method':
    case 'pending':
      return pay(notice);
    // A declined payment may be tried again until the session expires.
    case 'failed':
      return pay(notice ?? 'declined');
    // Part of a crypto payment arrived: the customer can send the rest (the intent is processing, not cancellable).
    case 'processing':
      if (found.kind === 'payment_intent' && found.session.payment_method === 'crypto' && summary.crypto) {
        return { page: 'pay', summary, test: found.environment === 'test', methods: ['crypto'], providerMethods: [], notice: null, cancellable: false, cryptoTransfers: true, cryptoOptions };
      }
      // At a provider's page (or back, its outcome not known yet): the customer can go on with that attempt.
      return { page: 'processing', summary, continueWith: found.kind === 'payment_intent' && providerMethods.includes(found.session.payment_method ?? '') ? found.session.payment_method : null };
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

/** The page's state as its status poll compares it: a new status or a new transfer means the page has news. */
export function sessionState(found: CheckoutSession): string {
  return found.kind === 'payment_intent' ? `${found.session.status}:${found.session.crypto.received_amount}` : found.session.status;
}

/**
 * The deposit page for the customer's choice of network + token: the rest due (all of it before any transfer) in
 * that token's units. A session that is no longer waiting for payment, or has no address yet, gets its usual page.
 */
export function cryptoDepositView(found: CheckoutSession, merchantName: string, option: CryptoOption, href: string): CheckoutView {
  const view = checkoutView(found, merchantName, null, [option]);
  if (view.page !== 'pay' || found.kind !== 'payment_intent' || !found.session.crypto.address || !found.session.available_methods.includes('crypto')) return view;
  const due = parseMoneyString(found.session.crypto.remaining_amount, { minCents: 1 });
  if (!due.ok) return view;
  const units = centsToTokenUnits(BigInt(due.cents), option.decimals);
  return { page: 'crypto', summary: view.summary, deposit: { address: found.session.crypto.address, option, units, href, seen: sessionState(found) } };
}
