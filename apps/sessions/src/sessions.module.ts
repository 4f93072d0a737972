import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { readCryptoSettings } from '@payments/chain';
import { parseCommandSecrets } from '@payments/config';
import { CommandClient, ServiceClient } from '@payments/platform';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SessionsConfig } from './config';
import { ExpiryScheduler } from './expiry/expiry.scheduler';
import { IdempotencyKeysPruner } from './idempotency/idempotency-keys.pruner';
import { SessionsController } from './commands/sessions.controller';
import { InvoiceHandlers } from './invoices/invoice.handlers';
import { PaymentIntentHandlers } from './payment-intents/payment-intent.handlers';
import { CheckoutHandlers } from './checkout/checkout.handlers';
import { PaymentHandlers } from './payments/payment.handlers';
import { SessionQueries } from './queries/session-queries';
import { ProviderAttemptScheduler } from './provider-payments/provider-attempt.scheduler';
import { ProviderPaymentHandlers } from './provider-payments/provider-payment.handlers';
import { createSessions, type Sessions } from './sessions.composition';
import { Clock, SystemClock } from './shared/clock';
import { SessionsDatabase } from './shared/sessions-database';
import { depositAddressesOf } from './crypto/deposit-addresses';
import { LedgerCommandClient } from './wallets/ledger-command.client';
import { WalletHandlers } from './wallets/wallet.handlers';

const SESSIONS = Symbol('Sessions');
const LEDGER_CLIENT = Symbol('LEDGER_CLIENT');

/** Payment intents and invoices: their commands, event store and read models, provider payments, the expiry and provider check jobs (wiring only: see createSessions). */
@Module({
  controllers: [SessionsController],
  providers: [
    { provide: Clock, useClass: SystemClock },
    {
      provide: SessionsDatabase,
      inject: [getDataSourceToken(), SessionsConfig],
      useFactory: (dataSource: DataSource, config: SessionsConfig) => new SessionsDatabase(dataSource, config),
    },
    {
      provide: LEDGER_CLIENT,
      inject: [SessionsConfig],
      useFactory: (config: SessionsConfig) => new CommandClient({ upstreams: { ledger: config.LEDGER_URL }, secrets: parseCommandSecrets(config.COMMAND_SECRET) }),
    },
    {
      provide: SESSIONS,
      inject: [SessionsDatabase, SessionsConfig, Clock, LEDGER_CLIENT],
      useFactory: (db: SessionsDatabase, config: SessionsConfig, clock: Clock, ledger: CommandClient) =>
        // Crypto settings are read (and refused, naming each problem) at start.
        createSessions(db, config, clock, new LedgerCommandClient(new ServiceClient(ledger, config.LEDGER_TIMEOUT_MS)), depositAddressesOf(readCryptoSettings(process.env))),
    },
    { provide: WalletHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.walletHandlers },
    { provide: PaymentIntentHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.intents },
    { provide: InvoiceHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.invoices },
    { provide: PaymentHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.payments },
    { provide: SessionQueries, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.queries },
    { provide: CheckoutHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.checkout },
    { provide: ProviderPaymentHandlers, inject: [SESSIONS], useFactory: (sessions: Sessions) => sessions.providerPaymentHandlers },
    {
      provide: ProviderAttemptScheduler,
      inject: [SESSIONS, SessionsConfig],
      useFactory: (sessions: Sessions, config: SessionsConfig) => new ProviderAttemptScheduler(sessions.providerPayments, config.PROVIDER_CHECK_INTERVAL_MS),
    },
    {
      provide: ExpiryScheduler,
      inject: [SessionsDatabase, SESSIONS, SessionsConfig, Clock],
      useFactory: (db: SessionsDatabase, sessions: Sessions, config: SessionsConfig, clock: Clock) => new ExpiryScheduler(db, sessions.expirers, config, clock),
    },
    IdempotencyKeysPruner,
  ],
})
export class SessionsModule implements OnApplicationShutdown {
  constructor(@Inject(LEDGER_CLIENT) private readonly ledger: CommandClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.close();
  }
}
