import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { STREAMS, topicName } from '@payments/events';
import { eventConsumerProvider } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { BalanceHandlers } from './balances/balance.handlers';
import { LedgerController } from './balances/ledger.controller';
import { LedgerCheckScheduler } from './check/ledger-check.scheduler';
import { LedgerConfig } from './config';
import { createLedger, type Ledger } from './ledger.composition';
import { BOOKED_EVENT_TYPES, BookingEventsHandler, walletPaymentPassedOver } from './bookings/booking-events.handler';
import { WalletHandlers } from './wallets/wallet.handlers';
import { WalletsController } from './wallets/wallets.controller';

const LEDGER = Symbol('Ledger');
const BOOKINGS_CONSUMER = Symbol('BOOKINGS_CONSUMER');

/**
 * The journal and balances: payments and refunds booked from their events, balances read over commands, customers'
 * wallets paid, credited and read over commands (wiring only: see createLedger).
 */
@Module({
  controllers: [LedgerController, WalletsController],
  providers: [
    {
      provide: LEDGER,
      inject: [getDataSourceToken(), LedgerConfig],
      useFactory: (dataSource: DataSource, config: LedgerConfig) => createLedger(dataSource, { schema: config.DB_SCHEMA, namespace: config.KAFKA_NAMESPACE }),
    },
    { provide: BookingEventsHandler, inject: [LEDGER], useFactory: (ledger: Ledger) => ledger.bookings },
    { provide: BalanceHandlers, inject: [LEDGER], useFactory: (ledger: Ledger) => ledger.balances },
    { provide: WalletHandlers, inject: [LEDGER], useFactory: (ledger: Ledger) => ledger.wallets },
    {
      provide: LedgerCheckScheduler,
      inject: [getDataSourceToken(), LedgerConfig],
      useFactory: (dataSource: DataSource, config: LedgerConfig) =>
        new LedgerCheckScheduler(dataSource, { ledger: config.DB_SCHEMA, sessions: config.SESSIONS_DB_SCHEMA, refunds: config.REFUNDS_DB_SCHEMA }, config.LEDGER_CHECK_INTERVAL_MS),
    },
    eventConsumerProvider(
      BOOKINGS_CONSUMER,
      // Ready once joined: after a restart, "ready" means payments and refunds are being booked again. One group
      // over both topics: one transaction can book both kinds. Payments come from the copies of sessions' paid
      // events, so the rest of a session's life (its creation above all) never wakes the ledger.
      {
        name: 'ledger.payments',
        topics: (namespace) => [topicName(namespace, STREAMS.sessionPayments), topicName(namespace, STREAMS.refunds)],
        readyOnceJoined: true,
        eventTypes: BOOKED_EVENT_TYPES,
        skips: walletPaymentPassedOver,
        // Balances are read, never waited on by a payment (wallet payments post by command): a balance may lag its
        // payment by this much, and at ordinary rates the postings of this span share one transaction.
        lingerMs: 50,
      },
      BookingEventsHandler,
      (handler) => ({ handle: (envelope, manager, ctx) => handler.handle(envelope, manager, ctx), beforeCommit: (manager) => handler.beforeCommit(manager) }),
    ),
  ],
})
export class LedgerModule {}
