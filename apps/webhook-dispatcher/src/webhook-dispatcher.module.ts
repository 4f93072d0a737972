import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { STREAMS, topicName, type EventEnvelope } from '@payments/events';
import { webhookDnsOptions } from '@payments/config';
import { OutboxWriter } from '@payments/messaging';
import { eventConsumerProvider } from '@payments/platform';
import { parseSecretsKey } from '@payments/webhooks';
import type { DataSource, EntityManager } from 'typeorm';
import { WebhookDispatcherConfig } from './config';
import { DeliveriesController } from './deliveries/deliveries.controller';
import { DeliveriesRepository } from './deliveries/deliveries.repository';
import { CommandResultsRepository } from './deliveries/command-results.repository';
import { DeliveriesService } from './deliveries/deliveries.service';
import { DeliveryRunner } from './deliveries/delivery.runner';
import { DeliveryWorker } from './deliveries/delivery.worker';
import { DeliveryWorkerHost } from './deliveries/delivery-worker.host';
import { WebhookSender } from './deliveries/webhook.sender';
import { EndpointEventsHandler } from './endpoints/endpoint-events.handler';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { ENDPOINT_EVENTS, PUBLIC_EVENTS } from './events/event-topics';
import { EventsRepository } from './events/events.repository';
import { PublicEventsHandler } from './events/public-events.handler';
import { RetentionJob } from './retention/retention.job';
import { CatchUpSweep } from './endpoints/catch-up.sweep';
import { WebhooksDatabase } from './shared/webhooks-database';

const PUBLIC_EVENTS_CONSUMER = Symbol('PUBLIC_EVENTS_CONSUMER');
const ENDPOINT_EVENTS_CONSUMER = Symbol('ENDPOINT_EVENTS_CONSUMER');

/** The consumer's handler: the handler class's `handle`, its outcome dropped. */
const asHandler =
  <T extends { handle(envelope: EventEnvelope, manager: EntityManager): Promise<unknown> }>(owner: T) =>
  async (envelope: EventEnvelope, manager: EntityManager): Promise<void> => {
    await owner.handle(envelope, manager);
  };

/**
 * Webhook delivery: consumes public events and endpoint settings, schedules deliveries in Postgres, runs the
 * delivery worker, and answers the gateway's delivery commands.
 */
@Module({
  controllers: [DeliveriesController],
  providers: [
    {
      provide: WebhooksDatabase,
      inject: [getDataSourceToken(), WebhookDispatcherConfig],
      useFactory: (dataSource: DataSource, config: WebhookDispatcherConfig) => new WebhooksDatabase(dataSource, config.DB_SCHEMA),
    },
    { provide: EndpointsRepository, inject: [WebhooksDatabase], useFactory: (db: WebhooksDatabase) => new EndpointsRepository(db) },
    { provide: EventsRepository, inject: [WebhooksDatabase], useFactory: (db: WebhooksDatabase) => new EventsRepository(db) },
    { provide: DeliveriesRepository, inject: [WebhooksDatabase], useFactory: (db: WebhooksDatabase) => new DeliveriesRepository(db) },
    EndpointEventsHandler,
    PublicEventsHandler,
    eventConsumerProvider(PUBLIC_EVENTS_CONSUMER, PUBLIC_EVENTS, PublicEventsHandler, asHandler),
    eventConsumerProvider(ENDPOINT_EVENTS_CONSUMER, ENDPOINT_EVENTS, EndpointEventsHandler, asHandler),
    {
      provide: WebhookSender,
      inject: [WebhookDispatcherConfig],
      useFactory: (config: WebhookDispatcherConfig) =>
        new WebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowInsecure: config.WEBHOOK_ALLOW_INSECURE_TARGETS, dns: webhookDnsOptions(config) }),
    },
    {
      provide: DeliveryRunner,
      inject: [WebhooksDatabase, DeliveriesRepository, EndpointsRepository, WebhookSender, WebhookDispatcherConfig],
      useFactory: (db: WebhooksDatabase, deliveries: DeliveriesRepository, endpoints: EndpointsRepository, sender: WebhookSender, config: WebhookDispatcherConfig) =>
        new DeliveryRunner(db, deliveries, endpoints, sender, {
          userAgent: config.WEBHOOK_USER_AGENT,
          retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
          disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
          secretsKey: parseSecretsKey(config.WEBHOOK_SECRETS_KEY),
          eventsTopic: topicName(config.KAFKA_NAMESPACE, STREAMS.webhooks),
        }, new OutboxWriter({ schema: config.DB_SCHEMA })),
    },
    {
      provide: DeliveryWorkerHost,
      inject: [WebhooksDatabase, DeliveriesRepository, DeliveryRunner, WebhookSender, WebhookDispatcherConfig],
      useFactory: (db: WebhooksDatabase, deliveries: DeliveriesRepository, runner: DeliveryRunner, sender: WebhookSender, config: WebhookDispatcherConfig) =>
        new DeliveryWorkerHost(
          new DeliveryWorker(db, deliveries, (claimed, sent) => runner.run(claimed, sent), {
            perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
            maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
            pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
            leaseMs: config.WEBHOOK_LEASE_MS,
          }),
          sender,
        ),
    },
    {
      provide: DeliveriesService,
      inject: [WebhooksDatabase, EndpointsRepository, EventsRepository, DeliveriesRepository, WebhookDispatcherConfig],
      useFactory: (db: WebhooksDatabase, endpoints: EndpointsRepository, events: EventsRepository, deliveries: DeliveriesRepository, config: WebhookDispatcherConfig) =>
        new DeliveriesService(db, endpoints, events, deliveries, new CommandResultsRepository(db.table('command_results')), config.WEBHOOK_EVENT_RETENTION_DAYS),
    },
    {
      provide: CatchUpSweep,
      inject: [WebhooksDatabase, DeliveriesRepository],
      useFactory: (db: WebhooksDatabase, deliveries: DeliveriesRepository) => new CatchUpSweep(db, deliveries),
    },
    {
      provide: RetentionJob,
      inject: [EventsRepository, WebhooksDatabase, WebhookDispatcherConfig],
      useFactory: (events: EventsRepository, db: WebhooksDatabase, config: WebhookDispatcherConfig) =>
        new RetentionJob(events, config.WEBHOOK_EVENT_RETENTION_DAYS, () =>
          new CommandResultsRepository(db.table('command_results')).prune(db.dataSource.manager, new Date(Date.now() - COMMAND_RESULT_RETENTION_MS)),
        ),
    },
  ],
})
export class WebhookDispatcherModule {}

/** As long as the gateway keeps an Idempotency-Key's replay record (IDEMPOTENCY_TTL_SECONDS' default). */
const COMMAND_RESULT_RETENTION_MS = 24 * 3600 * 1000;
