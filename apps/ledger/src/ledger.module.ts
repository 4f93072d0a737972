import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { STREAMS, topicName } from '@payments/events';
import { eventConsumerProvider } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { BalanceHandlers } from './balances/balance.handlers';
import { LedgerController } from './balances/ledger.controller';
import { LedgerConfig } from './config';
import { createLedger, type Ledger } from './ledger.composition';
import { PaymentEventsHandler } from './payments/payment-events.handler';

const LEDGER = Symbol('Ledger');
const PAYMENTS_CONSUMER = Symbol('PAYMENTS_CONSUMER');

/** The journal and balances: payments booked from sessions' events, balances read over commands (wiring only: see createLedger). */
@Module({
  controllers: [LedgerController],
  providers: [
    {
      provide: LEDGER,
      inject: [getDataSourceToken(), LedgerConfig],
      useFactory: (dataSource: DataSource, config: LedgerConfig) => createLedger(dataSource, { schema: config.DB_SCHEMA, namespace: config.KAFKA_NAMESPACE }),
    },
    { provide: PaymentEventsHandler, inject: [LEDGER], useFactory: (ledger: Ledger) => ledger.payments },
    { provide: BalanceHandlers, inject: [LEDGER], useFactory: (ledger: Ledger) => ledger.balances },
    eventConsumerProvider(
      PAYMENTS_CONSUMER,
      // Ready once joined: after a restart, "ready" means payments are being booked again.
      { name: 'ledger.payments', topics: (namespace) => [topicName(namespace, STREAMS.sessions)], readyOnceJoined: true },
      PaymentEventsHandler,
      (handler) => ({ handle: (envelope, manager, ctx) => handler.handle(envelope, manager, ctx), beforeCommit: (manager) => handler.beforeCommit(manager) }),
    ),
  ],
})
export class LedgerModule {}
