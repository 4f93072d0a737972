// The sessions service's command contract: command names, request bodies and replies as they travel on the
// command transport (`commandPattern('sessions', <name>)`), and the data of the public events it publishes.
// Shared by the gateway (caller) and the sessions service (handler); plain types, no framework.

import type { ListFilter, ListPage } from './list-filters';

export const SESSIONS_SERVICE = 'sessions';

export const SESSIONS_COMMANDS = {
  createPaymentIntent: 'payment-intents.create',
  getPaymentIntent: 'payment-intents.get',
  simulatePaymentIntent: 'payment-intents.simulate',
  cancelPaymentIntent: 'payment-intents.cancel',
  createInvoice: 'invoices.create',
  getInvoice: 'invoices.get',
  simulateInvoice: 'invoices.simulate',
  /** Internal (the refunds service): a payment by id, before its event has reached the asker. */
  findPayment: 'payments.find',
  /** The hosted checkout: a session by its id alone, with whose it is. */
  getCheckout: 'checkout.get',
  /** The hosted checkout's crypto sandbox (test mode): a transfer of any amount to the intent's address. */
  simulateCryptoTransfer: 'payment-intents.crypto-transfer',
  /**
   * The hosted checkout: the customer chose crypto; answers the intent with its own deposit address in
   * `crypto.address` (the same one when asked again). Test mode without a configured test chain: the sandbox address.
   */
  cryptoAddress: 'payment-intents.crypto-address',
  /** The hosted checkout: the customer pays with a provider (Lahza); answers the provider's page to send them to. */
  startProviderPayment: 'checkout.start-provider-payment',
  /** The customer is back from the provider's page with the attempt's reference: verified with the provider. */
  confirmProviderPayment: 'checkout.confirm-provider-payment',
  /** A provider's notification (raw body and signature header), checked, then confirmed by a verify call. */
  providerNotification: 'checkout.provider-notification',
  /** Internal (the refunds service): return part of a provider payment at its provider, once per refund id. */
  refundAtProvider: 'payments.refund-at-provider',
  /** Internal (the refunds service): what became of a refund asked of the provider, asked of the provider again. */
  providerRefundStatus: 'payments.provider-refund-status',
  /**
   * The hosted checkout: the signed-in customer pays the session from their wallet (`togo`). The ledger debits the
   * wallet and credits the merchant in one posting; the session succeeds with that payment, or the attempt is
   * declined (not enough balance) and the session may be paid again.
   */
  payFromWallet: 'checkout.pay-from-wallet',
  /** The wallet page: a card top-up of a wallet at the provider (Lahza); answers the provider's page. */
  startWalletTopUp: 'wallet-top-ups.start',
  /** Back from the provider's page: the top-up verified with the provider, the wallet credited once if it succeeded. */
  confirmWalletTopUp: 'wallet-top-ups.confirm',
  /** The dashboard: a merchant's payment intents, newest first, filtered. */
  listPaymentIntents: 'payment-intents.list',
  /** The dashboard: a merchant's invoices, newest first, filtered. */
  listInvoices: 'invoices.list',
  /** The dashboard: the timeline of one payment intent or invoice (its stored events with their sequence). */
  listSessionEvents: 'session-events.list',
} as const;

export type SessionsCommandName = (typeof SESSIONS_COMMANDS)[keyof typeof SESSIONS_COMMANDS];

export type SessionsEnvironment = 'live' | 'test';
export type IntentMethod = 'togo' | 'lahza' | 'crypto';
/** On the invoice surface a service-balance payment is `wallet` (`togo` is accepted as its other name). */
export type InvoiceMethod = 'wallet' | 'lahza' | 'crypto';

/** Every command names the merchant and the environment of the key that authenticated the request. */
export interface SessionsScope {
  merchant_id: string;
  environment: SessionsEnvironment;
}

/** What the gateway knows about the merchant and the service needs at creation. */
export interface MerchantSettings {
  /** Intent-surface names (`togo`, `lahza`, `crypto`). */
  enabled_methods: string[];
  /**
   * Fee rate per method in basis points, over DESIGN's schedule. The gateway sends every method (its standard
   * schedule with the merchant's own rates); a method left out is charged DESIGN's rate.
   */
  fee_overrides?: Record<string, number>;
}

export interface CustomerParams {
  name?: string;
  email?: string;
  phone?: string;
  city?: string;
  country?: string;
}

/** The API body, as validated by the gateway (MoneyString amount, expires_in in seconds). */
export interface SessionParams {
  amount: string;
  currency: 'USD';
  external_ref?: string;
  description?: string;
  success_url?: string;
  cancel_url?: string;
  methods?: string[];
  customer?: CustomerParams;
  metadata?: Record<string, unknown>;
  expires_in?: number;
}

export interface CreatePaymentIntentCommand extends SessionsScope {
  /** The Idempotency-Key: one intent per (merchant, environment, key); a repeat answers the existing intent. */
  idempotency_key: string;
  merchant: MerchantSettings;
  params: SessionParams;
}

export interface GetPaymentIntentCommand extends SessionsScope {
  id: string;
}

export interface SimulatePaymentIntentCommand extends SessionsScope {
  id: string;
  result: 'succeeded' | 'failed';
  method?: IntentMethod;
}

export type CancelPaymentIntentCommand = GetPaymentIntentCommand;

export interface CreateInvoiceCommand extends SessionsScope {
  idempotency_key: string;
  merchant: MerchantSettings;
  /** expires_in defaults to 86400 on invoices. */
  params: SessionParams;
}

export type GetInvoiceCommand = GetPaymentIntentCommand;

export interface SimulateInvoiceCommand extends SessionsScope {
  id: string;
  result: 'paid' | 'failed' | 'expired';
  method?: InvoiceMethod | 'togo';
}

export type PaymentIntentStatus = 'requires_payment_method' | 'processing' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
export type InvoiceStatus = 'pending' | 'paid' | 'failed' | 'expired';

/** A payment intent's crypto payment state (amounts as MoneyStrings). */
export interface CryptoStateResource {
  address: string | null;
  requested_amount: string;
  received_amount: string;
  remaining_amount: string;
  overpayment_amount: string;
  txid: string | null;
}

/** The spec's PaymentIntent, plus payment_id, description and metadata. */
export interface PaymentIntentResource {
  id: string;
  object: 'payment_intent';
  status: PaymentIntentStatus;
  amount: string;
  currency: 'USD';
  fee: string;
  net_amount: string;
  payment_method: IntentMethod | null;
  external_ref: string | null;
  paid: boolean;
  available_methods: IntentMethod[];
  checkout_url: string;
  crypto: CryptoStateResource;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  payment_id: string | null;
  description: string | null;
  metadata: Record<string, unknown>;
}

/** The payment of a paid invoice. */
export interface InvoicePaymentResource {
  reference: string;
  method: InvoiceMethod;
  payer_name: string | null;
  payer_email: string | null;
  payer_phone: string | null;
  payer_country: string | null;
  paid_at: string;
}

/** The spec's Invoice. */
export interface InvoiceResource {
  id: string;
  number: string;
  status: InvoiceStatus;
  environment: SessionsEnvironment;
  amount: string;
  currency: 'USD';
  fee: string;
  net: string;
  external_ref: string;
  description: string;
  checkout_url: string;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  metadata: Record<string, unknown>;
  payment: InvoicePaymentResource | null;
}

export interface SimulateInvoiceReply {
  id: string;
  status: InvoiceStatus;
  environment: 'test';
}

/** `payment-intents.list`: the filters of every list, and the intent's own reference. */
export interface ListPaymentIntentsCommand extends SessionsScope, ListFilter<PaymentIntentStatus>, ListPage {
  /** Exactly this external_ref. */
  external_ref?: string;
}

/** `invoices.list`. */
export interface ListInvoicesCommand extends SessionsScope, ListFilter<InvoiceStatus>, ListPage {
  external_ref?: string;
}

/** `session-events.list`: the timeline of one `pi_…` or `inv_…` (another merchant's or environment's is not found). */
export interface ListSessionEventsCommand extends SessionsScope {
  id: string;
}

/** One stored event of a session, oldest first. */
export interface SessionEventView {
  object: 'session_event';
  /** The stream version: the `sequence` its public event carries. */
  sequence: number;
  /** The public event type (`payment_intent.succeeded`), or null for an event that is not published. */
  type: string | null;
  /** The stored event's own name (`PaymentIntentSucceeded`). */
  name: string;
  occurred_at: string;
}

export interface SessionsList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/** Body and reply of every command, for a typed client: `request<K>(name: K, body: ...['body'])`. */
export interface SessionsCommandMap {
  'payment-intents.create': { body: CreatePaymentIntentCommand; reply: PaymentIntentResource };
  'payment-intents.get': { body: GetPaymentIntentCommand; reply: PaymentIntentResource };
  'payment-intents.simulate': { body: SimulatePaymentIntentCommand; reply: PaymentIntentResource };
  'payment-intents.cancel': { body: CancelPaymentIntentCommand; reply: PaymentIntentResource };
  'invoices.create': { body: CreateInvoiceCommand; reply: InvoiceResource };
  'invoices.get': { body: GetInvoiceCommand; reply: InvoiceResource };
  'invoices.simulate': { body: SimulateInvoiceCommand; reply: SimulateInvoiceReply };
  'payments.find': { body: FindPaymentCommand; reply: SessionPaymentResource };
  'checkout.get': { body: GetCheckoutCommand; reply: CheckoutSession };
  'payment-intents.crypto-transfer': { body: SimulateCryptoTransferCommand; reply: PaymentIntentResource };
  'payment-intents.crypto-address': { body: CryptoAddressCommand; reply: PaymentIntentResource };
  'checkout.start-provider-payment': { body: StartProviderPaymentCommand; reply: StartProviderPaymentReply };
  'checkout.confirm-provider-payment': { body: ConfirmProviderPaymentCommand; reply: ProviderPaymentOutcome };
  'checkout.provider-notification': { body: ProviderNotificationCommand; reply: ProviderNotificationReply };
  'payments.refund-at-provider': { body: RefundAtProviderCommand; reply: ProviderRefundReply };
  'payments.provider-refund-status': { body: ProviderRefundStatusCommand; reply: ProviderRefundReply };
  'payment-intents.list': { body: ListPaymentIntentsCommand; reply: SessionsList<PaymentIntentResource> };
  'invoices.list': { body: ListInvoicesCommand; reply: SessionsList<InvoiceResource> };
  'session-events.list': { body: ListSessionEventsCommand; reply: SessionsList<SessionEventView> };
  'checkout.pay-from-wallet': { body: PayFromWalletCheckoutCommand; reply: WalletPaymentOutcome };
  'wallet-top-ups.start': { body: StartWalletTopUpCommand; reply: StartWalletTopUpReply };
  'wallet-top-ups.confirm': { body: ConfirmWalletTopUpCommand; reply: WalletTopUpOutcome };
}

/** The payer as an invoice reports a wallet payment (the wallet's profile; the gateway masks the phone). */
export interface WalletPayer {
  name: string | null;
  email: string;
  /** Partially masked, as the spec allows (e.g. `+97059•••4567`). */
  phone: string | null;
  /** Two-letter country code. */
  country: string | null;
}

export interface PayFromWalletCheckoutCommand {
  /** `pi_…` or `inv_…`. */
  id: string;
  /** The signed-in customer's wallet, of the session's environment (checked by sessions). */
  wallet_id: string;
  payer: WalletPayer;
}

/**
 * `succeeded`: paid (the ledger posted the debit); `declined`: not paid, `reason` says why (`insufficient_funds`),
 * the session may be paid again; `pending`: the ledger did not answer in time, the attempt is settled in the
 * background (never charged twice), the page shows the session as it becomes.
 */
export interface WalletPaymentOutcome {
  id: string;
  outcome: 'succeeded' | 'declined' | 'pending';
  reason: string | null;
  /** The wallet's balance after the attempt when the ledger said (MoneyString), else null. */
  balance: string | null;
  /** Where the shop sends its customer after paying (the session's own), so the checkout needs no read first. */
  success_url: string | null;
}

export interface StartWalletTopUpCommand {
  wallet_id: string;
  environment: SessionsEnvironment;
  /** The customer's e-mail (the provider asks for one). */
  email: string;
  /** MoneyString, 0.50 to 999999.99. */
  amount: string;
  /** A checkout session to go back to once the top-up is done (the customer was short on it). */
  return_to?: string;
}

export interface StartWalletTopUpReply {
  redirect_url: string;
  /** The top-up's reference (the provider attempt's). */
  reference: string;
}

export interface ConfirmWalletTopUpCommand {
  reference: string;
}

export interface WalletTopUpOutcome {
  reference: string;
  wallet_id: string;
  environment: SessionsEnvironment;
  outcome: 'succeeded' | 'failed' | 'pending';
  amount: string;
  return_to: string | null;
}

export interface RefundAtProviderCommand extends SessionsScope {
  /** The payment refunded (made by a provider attempt of this merchant and environment). */
  payment_id: string;
  /** The refunds service's refund id: the provider is asked once per id, whatever number of times this is sent. */
  refund_id: string;
  /** MoneyString. */
  amount: string;
}

export interface ProviderRefundStatusCommand extends SessionsScope {
  refund_id: string;
}

/** What the provider says of a refund: still pending there, completed (processed), or failed with its reason. */
export interface ProviderRefundReply {
  refund_id: string;
  status: 'pending' | 'completed' | 'failed';
  /** The provider's words on a failure; null otherwise. */
  reason: string | null;
}

export interface StartProviderPaymentCommand {
  /** `pi_…` or `inv_…`. */
  id: string;
  method: 'lahza';
}

/** Where the customer goes: the provider's page of the session's one open attempt. */
export interface StartProviderPaymentReply {
  redirect_url: string;
}

export interface ConfirmProviderPaymentCommand {
  /** The session the return address names: a reference of another session is not found. */
  id: string;
  reference: string;
}

/** What the provider said of the attempt once verified (`pending`: not yet known; checked again in the background). */
export interface ProviderPaymentOutcome {
  id: string;
  outcome: 'succeeded' | 'failed' | 'pending';
  /** The payment arrived after the session had expired: recorded all the same. */
  late: boolean;
}

export interface ProviderNotificationCommand {
  provider: 'lahza';
  /** The notification's raw body, base64 (the signature covers these exact bytes). */
  body: string;
  signature: string | null;
}

export interface ProviderNotificationReply {
  /** False when the signature is not the provider's: nothing was done. */
  accepted: boolean;
  /** The session the notification was about, when it is ours (so a cached read of it can be dropped). */
  session?: { id: string; merchant_id: string; environment: SessionsEnvironment };
  /**
   * Refunds whose outcome the provider gave while this notification was handled (completed or failed there): the
   * refunds service is told at once instead of learning it at its next check.
   */
  refunds?: Array<{ refund_id: string; merchant_id: string; environment: SessionsEnvironment }>;
}

export interface SimulateCryptoTransferCommand extends SessionsScope {
  id: string;
  /** MoneyString: what the sandbox transfer sends (less or more than due, or the rest). */
  amount: string;
}

/** `payment-intents.crypto-address`: the intent (of the checkout's session) to give a deposit address. */
export type CryptoAddressCommand = GetPaymentIntentCommand;

export interface GetCheckoutCommand {
  /** `pi_…` or `inv_…`. */
  id: string;
}

/** What the checkout needs beyond the resource: where the customer goes after, and the methods offered. */
export interface CheckoutTerms {
  merchant_id: string;
  environment: SessionsEnvironment;
  success_url: string | null;
  cancel_url: string | null;
  methods: string[];
  /** The methods a real provider takes in this session's environment (Lahza with its live or test key). */
  provider_methods: string[];
  /**
   * The networks + tokens a payment intent offering crypto can be paid with, when crypto is configured for its
   * environment (sessions holds the crypto settings; the gateway reads none). Empty otherwise: test mode then has
   * its sandbox. Absent from a sessions instance older than this field.
   */
  crypto_options?: CheckoutCryptoOption[];
}

/** One configured network + token of the checkout's crypto choice. */
export interface CheckoutCryptoOption {
  network: string;
  chain_id: number;
  /** Confirmations a transfer waits for before it counts. */
  confirmations: number;
  symbol: string;
  /** The token's contract, EIP-55. */
  token: string;
  decimals: number;
}

/** A session as the hosted checkout needs it: the resource and whose it is (the page knows the id alone). */
export type CheckoutSession =
  | (CheckoutTerms & { kind: 'payment_intent'; session: PaymentIntentResource })
  | (CheckoutTerms & { kind: 'invoice'; session: InvoiceResource });

export interface FindPaymentCommand extends SessionsScope {
  /** The payment id. */
  id: string;
}

/** A payment as sessions keeps it: its amounts, the intent or invoice it paid and when. */
export interface SessionPaymentResource {
  id: string;
  /** `pi_…` or `inv_…`. */
  source: string;
  method: string;
  amount: string;
  fee: string;
  net: string;
  currency: 'USD';
  paid_at: string;
}

// Public events on `<namespace>.sessions.events.v1` (key = intent or invoice id, sequence = stream version).

/** The payment a `payment_intent.succeeded` or `invoice.paid` event carries for the ledger (MoneyStrings). */
export interface PaymentEventData {
  /** The payment id (numeric-looking). */
  id: string;
  /** `togo`/`lahza`/`crypto` on intents; `wallet`/`lahza`/`crypto` on invoices. */
  method: string;
  amount: string;
  fee: string;
  /** The rate the fee was computed at, in basis points (half-up to the cent); absent on events before it was carried. */
  fee_rate_bps?: number;
  net: string;
  currency: 'USD';
  /** The customer wallet debited, on a wallet payment (`togo`/`wallet`): the ledger posted it when it was paid. */
  wallet_id?: string | null;
}

/** `data` of every `payment_intent.*` event: the intent as GET shows it right after the change. */
export interface PaymentIntentEventData {
  object: PaymentIntentResource;
  /** On `payment_intent.succeeded` only. */
  payment?: PaymentEventData;
}

/** `data` of every `invoice.*` event: the invoice as GET shows it right after the change. */
export interface InvoiceEventData {
  object: InvoiceResource;
  /** On `invoice.paid` only. */
  payment?: PaymentEventData;
}
