// The sessions service's parts, built in one place: the Nest module, the tests and the benchmarks all call
// createSessions, so what runs in production is what is tested.
import { SESSIONS_COMMANDS } from '@payments/contracts';
import type { EntityManager } from 'typeorm';
import { SessionCommands } from './command-pipeline/session-commands';
import type { Transaction } from './command-pipeline/session-store';
import type { SessionsConfig } from './config';
import type { InvoiceResource, InvoiceState, PaymentIntentResource, PaymentIntentState } from './domain';
import type { DueSession } from './expiry/due-session';
import { IdempotencyKeysRepository } from './idempotency/idempotency-keys.repository';
import { InvoiceNumbers } from './invoices/invoice-numbers';
import { INVOICES_LAYOUT, invoiceKind } from './invoices/invoice.kind';
import { InvoiceHandlers } from './invoices/invoice.handlers';
import { PAYMENT_INTENTS_LAYOUT, paymentIntentKind } from './payment-intents/payment-intent.kind';
import { PaymentIntentHandlers } from './payment-intents/payment-intent.handlers';
import { CheckoutHandlers } from './checkout/checkout.handlers';
import { PaymentHandlers } from './payments/payment.handlers';
import { PaymentsRepository } from './payments/payments.repository';
import { ProviderAttemptsRepository } from './provider-payments/provider-attempts.repository';
import { ProviderPayments } from './provider-payments/provider-payments';
import { ProviderPaymentHandlers } from './provider-payments/provider-payment.handlers';
import { ProviderRefunds } from './provider-payments/provider-refunds';
import { ProviderRefundsRepository } from './provider-payments/provider-refunds.repository';
import { providerSessions } from './provider-payments/provider-sessions';
import { PaymentProviders } from './providers/payment-providers';
import { PostgresSessionStore, transactionOf } from './persistence/postgres-session-store';
import { SessionReadModel } from './persistence/session-read-model';
import { SessionQueries } from './queries/session-queries';
import type { Clock } from './shared/clock';
import type { SessionsDatabase } from './shared/sessions-database';
import { WalletHandlers } from './wallets/wallet.handlers';
import { CryptoAddresses, WatchedAddresses } from './crypto/crypto-addresses';
import { NO_DEPOSIT_ADDRESSES, type DepositAddresses } from './crypto/deposit-addresses';
import { PaymentIntentTransferSink } from './crypto/transfer-sink';
import { AssignCryptoAddress } from './payment-intents/assign-crypto-address';
import type { WalletLedger } from './wallets/wallet-ledger';
import { WalletPayments } from './wallets/wallet-payments';
import { WalletTopUps } from './wallets/wallet-top-ups';

/** What the expiry job does with one kind of session, in its transaction. */
export interface Expirer {
  /** A query (its $1 the time) with a row when any session of the kind is due: checked before a transaction is opened. */
  readonly dueQuery: string;
  lockDue(manager: EntityManager, now: Date, limit: number): Promise<DueSession[]>;
  expireLocked(manager: EntityManager, due: DueSession, now: Date, correlationId: string): Promise<boolean>;
  setAsideExpiry(manager: EntityManager, due: DueSession, now: Date): Promise<number>;
}

export interface Sessions {
  intents: PaymentIntentHandlers;
  /** The chain watcher's ports: where confirmed transfers go, and which addresses to watch. */
  transferSink: PaymentIntentTransferSink;
  watchedAddresses: WatchedAddresses;
  queries: SessionQueries;
  invoices: InvoiceHandlers;
  payments: PaymentHandlers;
  checkout: CheckoutHandlers;
  providerPayments: ProviderPayments;
  providerRefunds: ProviderRefunds;
  providerPaymentHandlers: ProviderPaymentHandlers;
  walletPayments: WalletPayments;
  walletTopUps: WalletTopUps;
  walletHandlers: WalletHandlers;
  expirers: { payment_intent: Expirer; invoice: Expirer };
}

/** The least time before a provider refund request whose answer was lost, and which the provider does not list, is sent again. */
export const REFUND_RESEND_AFTER_MS = 60_000;

/** The settings createSessions reads. */
export type SessionsSettings = Pick<
  SessionsConfig,
  'PUBLIC_BASE_URL' | 'IDEMPOTENCY_TTL_SECONDS' | 'LAHZA_BASE_URL' | 'LAHZA_LIVE_SECRET_KEY' | 'LAHZA_TEST_SECRET_KEY' | 'LAHZA_TIMEOUT_MS' | 'LAHZA_SIGNATURE_ALGORITHM' | 'PROVIDER_NOTIFICATION_WAIT_MS'
>;

/**
 * `ledger`: the ledger's wallet commands (LedgerCommandClient in the service; a stand-in in some tests). `deposits`:
 * crypto deposit addresses from the configured keys (none: test mode keeps its sandbox, live offers no crypto).
 */
export function createSessions(db: SessionsDatabase, config: SessionsSettings, clock: Clock, ledger: WalletLedger, deposits: DepositAddresses = NO_DEPOSIT_ADDRESSES): Sessions {
  const payments = new PaymentsRepository(db.schema);
  const idempotency = new IdempotencyKeysRepository(db.schema);
  const numbers = new InvoiceNumbers(db.schema);
  const intentRows = new SessionReadModel<PaymentIntentState, PaymentIntentResource>(db.schema, PAYMENT_INTENTS_LAYOUT);
  const invoiceRows = new SessionReadModel<InvoiceState, InvoiceResource>(db.schema, INVOICES_LAYOUT);
  const intents = new SessionCommands(
    paymentIntentKind(config.PUBLIC_BASE_URL),
    new PostgresSessionStore(db, intentRows, payments, idempotency),
    clock,
    config.IDEMPOTENCY_TTL_SECONDS,
  );
  const invoices = new SessionCommands(
    invoiceKind(config.PUBLIC_BASE_URL),
    new PostgresSessionStore(db, invoiceRows, payments, idempotency, (manager, scope) => numbers.next(manager, scope)),
    clock,
    config.IDEMPOTENCY_TTL_SECONDS,
  );
  const providers = new PaymentProviders(config);
  const owners = {
    payment_intent: (id: string) => intentRows.findOwner(db.dataSource.manager, id),
    invoice: (id: string) => invoiceRows.findOwner(db.dataSource.manager, id),
  };
  // What a new session may offer in its environment: what its providers can take there. Live crypto on intents
  // only (invoices have no deposit address yet).
  const usableIn = (environment: 'live' | 'test') => providers.usableIn(environment);
  const intentsUsableIn = (environment: 'live' | 'test') => providers.usableIn(environment, deposits.configuredFor(environment));
  const cryptoAddresses = new CryptoAddresses((name) => db.table(name));
  const attempts = new ProviderAttemptsRepository((name) => db.table(name));
  // A refund request whose answer was lost is sent again only once the provider's list has long had time to show it.
  const resendAfterMs = Math.max(REFUND_RESEND_AFTER_MS, 3 * config.LAHZA_TIMEOUT_MS);
  const providerRefunds = new ProviderRefunds(db.dataSource, providers, attempts, new ProviderRefundsRepository((name) => db.table(name)), clock, resendAfterMs);
  const sessionsOfAttempts = providerSessions(intents, invoices, owners, clock, (kind, id) => attempts.sessionWithOpen(db.dataSource, kind, id));
  const providerPayments = new ProviderPayments(
    db.dataSource,
    providers,
    attempts,
    providerRefunds,
    sessionsOfAttempts,
    config.PUBLIC_BASE_URL,
    clock,
    config.PROVIDER_NOTIFICATION_WAIT_MS,
  );
  const walletPayments = new WalletPayments(db.dataSource, attempts, sessionsOfAttempts, providerPayments, ledger, clock);
  const walletTopUps = new WalletTopUps(db.dataSource, providers, attempts, providerPayments, ledger, config.PUBLIC_BASE_URL, clock);
  // Their attempts are settled by their own rules, through the provider attempts' check and leases.
  providerPayments.use(walletPayments);
  providerPayments.use(walletTopUps);
  const manager = () => db.dataSource.manager;
  const queries = new SessionQueries(
    manager,
    db.events,
    { listCommand: SESSIONS_COMMANDS.listPaymentIntents, rows: intentRows, kind: intents.kind },
    { listCommand: SESSIONS_COMMANDS.listInvoices, rows: invoiceRows, kind: invoices.kind },
    clock,
  );
  return {
    intents: new PaymentIntentHandlers(intents, intentsUsableIn, new AssignCryptoAddress(intents, db.dataSource, cryptoAddresses, deposits, clock)),
    transferSink: new PaymentIntentTransferSink(intents, owners.payment_intent, clock),
    watchedAddresses: new WatchedAddresses(db.dataSource, (name) => db.table(name), clock),
    queries,
    invoices: new InvoiceHandlers(invoices, usableIn),
    payments: new PaymentHandlers(db.dataSource, payments),
    checkout: new CheckoutHandlers(
      { owner: owners.payment_intent, get: (scope, id) => intents.get(scope, id) },
      { owner: owners.invoice, get: (scope, id) => invoices.get(scope, id) },
      // The created event holds the terms: the read model keeps no URLs.
      async (scope, id) => {
        const [created] = await db.events.load<{ type: string; data: { successUrl: string | null; cancelUrl: string | null; methods: string[] } }>(db.dataSource.manager, scope, id);
        return created ? created.event.data : null;
      },
      providers,
      (environment) =>
        deposits.chainsFor(environment).flatMap((chain) =>
          chain.tokens.map((token) => ({ network: chain.name, chain_id: chain.chainId, confirmations: chain.confirmations, symbol: token.symbol, token: token.address, decimals: token.decimals })),
        ),
    ),
    providerPayments,
    providerRefunds,
    providerPaymentHandlers: new ProviderPaymentHandlers(providerPayments, providerRefunds),
    walletPayments,
    walletTopUps,
    walletHandlers: new WalletHandlers(walletPayments, walletTopUps),
    expirers: { payment_intent: expirer(intentRows, intents), invoice: expirer(invoiceRows, invoices) },
  };
}

function expirer(
  rows: { dueQuery: string; lockDue: Expirer['lockDue']; setAsideExpiry(manager: EntityManager, id: string, now: Date): Promise<number> },
  commands: { expire(scope: DueSession, id: string, now: Date, correlationId: string, within: Transaction): Promise<boolean> },
): Expirer {
  return {
    dueQuery: rows.dueQuery,
    lockDue: (manager, now, limit) => rows.lockDue(manager, now, limit),
    expireLocked: (manager, due, now, correlationId) => commands.expire(due, due.id, now, correlationId, transactionOf(manager)),
    setAsideExpiry: (manager, due, now) => rows.setAsideExpiry(manager, due.id, now),
  };
}
