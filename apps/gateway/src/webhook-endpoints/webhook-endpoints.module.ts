import { Module } from '@nestjs/common';
import { STREAMS, topicName } from '@payments/events';
import { HostResolver, webhookDnsOptions } from '@payments/webhooks';
import { eventConsumerProvider, type ConsumerDefinition } from '@payments/platform';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../config';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OptionalIdempotencyInterceptor } from './optional-idempotency.interceptor';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookTargetPolicy } from './webhook-target.policy';
import { WebhooksClient } from './webhooks.client';

/** What the webhook-dispatcher decides about endpoints on its own: disabling one shows here as its status. */
export const DISPATCHER_EVENTS: ConsumerDefinition = {
  name: 'gateway.webhook-endpoint-status',
  topics: (namespace) => [topicName(namespace, STREAMS.webhooks)],
};
const DISPATCHER_EVENTS_CONSUMER = Symbol('DISPATCHER_EVENTS_CONSUMER');

/** Webhook endpoint settings (owned here, published to the dispatcher) and delivery visibility routes. */
@Module({
  imports: [IdempotencyModule],
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [
    {
      provide: WebhookEndpointsService,
      inject: [DataSource, GatewayConfig],
      useFactory: (dataSource: DataSource, config: GatewayConfig) =>
        new WebhookEndpointsService(
          new WebhookEndpointsRepository(dataSource, config.DB_SCHEMA),
          new WebhookSecrets(config.WEBHOOK_SECRETS_KEY),
          new WebhookTargetPolicy(config.WEBHOOK_ALLOW_INSECURE_TARGETS, new HostResolver(webhookDnsOptions(config)).lookup),
          {
            schema: config.DB_SCHEMA,
            eventsTopic: topicName(config.KAFKA_NAMESPACE, STREAMS.gateway),
            idempotencyTtlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
          },
        ),
    },
    eventConsumerProvider(DISPATCHER_EVENTS_CONSUMER, DISPATCHER_EVENTS, WebhookEndpointsService, (service) => async (envelope, manager) => {
      await service.applyDispatcherEvent(envelope, manager);
    }),
    WebhooksClient,
    OptionalIdempotencyInterceptor,
  ],
  // The dashboard's pages read deliveries through the same client as the API.
  exports: [WebhooksClient],
})
export class WebhookEndpointsModule {}
