import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { webhookDnsOptions } from '@payments/webhooks';
import { STREAMS, topicName, type EventEnvelope } from '@payments/events';
import { eventConsumerProvider } from '@payments/platform';
import { parseSecretsKey } from '@payments/webhooks';
import type { DataSource, EntityManager } from 'typeorm';
import { WebhookDispatcherConfig } from './config';
import { DeliveriesController } from './deliveries/deliveries.controller';
import { DeliveriesService } from './deliveries/deliveries.service';
import { DeliveryWorkerHost } from './deliveries/delivery-worker.host';
import { CatchUpSweep } from './endpoints/catch-up.sweep';
import { EndpointEventsHandler } from './endpoints/endpoint-events.handler';
import { ENDPOINT_EVENTS, PUBLIC_EVENTS } from './events/event-topics';
import { PublicEventsHandler } from './events/public-events.handler';
import { RetentionJob } from './retention/retention.job';
import { createDispatcher, type Dispatcher } from './webhook-dispatcher.composition';

const DISPATCHER = Symbol('DISPATCHER');
const PUBLIC_EVENTS_CONSUMER = Symbol('PUBLIC_EVENTS_CONSUMER');
const ENDPOINT_EVENTS_CONSUMER = Symbol('ENDPOINT_EVENTS_CONSUMER');

/** The consumer's handler: the handler class's `handle`, its outcome dropped. */
const asHandler =
  <T extends { handle(envelope: EventEnvelope, manager: EntityManager): Promise<unknown> }>(owner: T) =>
  async (envelope: EventEnvelope, manager: EntityManager): Promise<void> => {
    await owner.handle(envelope, manager);
  };

/** A part of the dispatcher createDispatcher built, as a provider. */
const part = <T>(token: abstract new (...args: never[]) => T, pick: (dispatcher: Dispatcher) => T) => ({ provide: token, inject: [DISPATCHER], useFactory: pick });

/**
 * Webhook delivery: consumes public events and endpoint settings, schedules deliveries in Postgres, runs the
 * delivery worker, and answers the gateway's delivery commands. Wiring only: the parts come from createDispatcher.
 */
@Module({
  controllers: [DeliveriesController],
  providers: [
    {
      provide: DISPATCHER,
      inject: [getDataSourceToken(), WebhookDispatcherConfig],
      useFactory: (dataSource: DataSource, config: WebhookDispatcherConfig) =>
        createDispatcher(dataSource, {
          schema: config.DB_SCHEMA,
          sender: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowInsecure: config.WEBHOOK_ALLOW_INSECURE_TARGETS, dns: webhookDnsOptions(config) },
          delivery: {
            userAgent: config.WEBHOOK_USER_AGENT,
            retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
            disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
            secretsKey: parseSecretsKey(config.WEBHOOK_SECRETS_KEY),
            eventsTopic: topicName(config.KAFKA_NAMESPACE, STREAMS.webhooks),
          },
          eventRetentionDays: config.WEBHOOK_EVENT_RETENTION_DAYS,
        }),
    },
    part(EndpointEventsHandler, (d) => d.endpointEvents),
    part(PublicEventsHandler, (d) => d.publicEvents),
    part(DeliveriesService, (d) => d.service),
    part(CatchUpSweep, (d) => d.catchUp),
    part(RetentionJob, (d) => d.retention),
    // Each run of events is stored, with its first sends, in the statement of its inbox claim (PublicEventsHandler).
    eventConsumerProvider(PUBLIC_EVENTS_CONSUMER, PUBLIC_EVENTS, PublicEventsHandler, (handler) => ({
      handle: (envelope, manager) => handler.handle(envelope, manager),
      claimedWrites: (manager) => handler.claimedWrites(manager),
    })),
    eventConsumerProvider(ENDPOINT_EVENTS_CONSUMER, ENDPOINT_EVENTS, EndpointEventsHandler, asHandler),
    {
      provide: DeliveryWorkerHost,
      inject: [DISPATCHER, WebhookDispatcherConfig],
      useFactory: (dispatcher: Dispatcher, config: WebhookDispatcherConfig) =>
        new DeliveryWorkerHost(
          dispatcher.worker({
            perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
            maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
            pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
            leaseMs: config.WEBHOOK_LEASE_MS,
          }),
          dispatcher.sender,
        ),
    },
  ],
})
export class WebhookDispatcherModule {}
