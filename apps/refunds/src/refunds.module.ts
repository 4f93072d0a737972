import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { parseCommandSecrets } from '@payments/config';
import { PAID_EVENT_TYPES, STREAMS, topicName } from '@payments/events';
import { eventConsumerProvider, CommandClient, ServiceClient } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { RefundsController } from './commands/refunds.controller';
import { RefundsConfig } from './config';
import { PaymentEventsHandler } from './payments/payment-events.handler';
import { ProviderRefundScheduler } from './refunds/provider-refund.scheduler';
import { RefundHandlers } from './refunds/refund.handlers';
import { createRefunds, type Refunds } from './refunds.composition';
import { SessionsPaymentsClient } from './sessions-lookup/sessions-payments';

const REFUNDS = Symbol('Refunds');
const SESSIONS_CLIENT = Symbol('SESSIONS_CLIENT');
const PAYMENTS_CONSUMER = Symbol('PAYMENTS_CONSUMER');

/** Refunds and the payments they are taken from, and the check of refunds pending at a provider (wiring only: see createRefunds). */
@Module({
  controllers: [RefundsController],
  providers: [
    {
      provide: SESSIONS_CLIENT,
      inject: [RefundsConfig],
      useFactory: (config: RefundsConfig) => new CommandClient({ upstreams: { sessions: config.SESSIONS_URL }, secrets: parseCommandSecrets(config.COMMAND_SECRET) }),
    },
    {
      provide: REFUNDS,
      inject: [getDataSourceToken(), RefundsConfig, SESSIONS_CLIENT],
      useFactory: (dataSource: DataSource, config: RefundsConfig, client: CommandClient) =>
        createRefunds(dataSource, { schema: config.DB_SCHEMA, namespace: config.KAFKA_NAMESPACE }, new SessionsPaymentsClient(new ServiceClient(client, config.SESSIONS_TIMEOUT_MS))),
    },
    { provide: RefundHandlers, inject: [REFUNDS], useFactory: (refunds: Refunds) => refunds.refunds },
    { provide: PaymentEventsHandler, inject: [REFUNDS], useFactory: (refunds: Refunds) => refunds.payments },
    {
      provide: ProviderRefundScheduler,
      inject: [REFUNDS, RefundsConfig],
      useFactory: (refunds: Refunds, config: RefundsConfig) => new ProviderRefundScheduler(refunds.providerRefunds, config.PROVIDER_REFUND_CHECK_INTERVAL_MS),
    },
    eventConsumerProvider(
      PAYMENTS_CONSUMER,
      // Nobody waits on this projection (a refund of a payment not seen yet asks sessions), so it may lag by 100 ms
      // and take a span's events in one statement with their inbox claim. It reads the copies of sessions' paid
      // events: the rest of a session's life never wakes it.
      { name: 'refunds.payments', topics: (namespace) => [topicName(namespace, STREAMS.sessionPayments)], eventTypes: PAID_EVENT_TYPES, lingerMs: 100 },
      PaymentEventsHandler,
      (handler) => ({ handle: (envelope, manager) => handler.handle(envelope, manager), claimedWrites: (manager) => handler.claimedWrites(manager) }),
    ),
  ],
})
export class RefundsModule implements OnApplicationShutdown {
  constructor(@Inject(SESSIONS_CLIENT) private readonly sessions: CommandClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sessions.close();
  }
}
