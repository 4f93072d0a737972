import { Module } from '@nestjs/common';
import { STREAMS, topicName } from '@payments/events';
import { HostResolver, webhookDnsOptions } from '@payments/webhooks';
import { eventConsumerProvider, type ConsumerDefinition } from '@payments/platform';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../config';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MailOutbox } from '../mail/mail-outbox';
import { MailRecipients } from '../mail/mail-recipients';
import { MailModule } from '../mail/mail.module';
import { EndpointDisabledNotifier } from './endpoint-disabled.notifier';
import { OptionalIdempotencyInterceptor } from './optional-idempotency.interceptor';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookTargetPolicy } from './webhook-target.policy';
import { WebhooksClient } from './webhooks.client';

/**
 * What the webhook-dispatcher decides about endpoints on its own: disabling one shows here as its status, and
 * its merchant is e-mailed.
 */
export const DISPATCHER_EVENTS: ConsumerDefinition = {
  name: 'gateway.webhook-endpoint-status',
  topics: (namespace) => [topicName(namespace, STREAMS.webhooks)],
};
const DISPATCHER_EVENTS_CONSUMER = Symbol('DISPATCHER_EVENTS_CONSUMER');

/** Webhook endpoint settings (owned here, published to the dispatcher) and delivery visibility routes. */
@Module({
  imports: [IdempotencyModule, MailModule],
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
    {
      provide: EndpointDisabledNotifier,
      inject: [WebhookEndpointsService, MailOutbox, MailRecipients, GatewayConfig],
      useFactory: (service: WebhookEndpointsService, outbox: MailOutbox, recipients: MailRecipients, config: GatewayConfig) =>
        new EndpointDisabledNotifier(service, outbox, recipients, config.PUBLIC_BASE_URL),
    },
    eventConsumerProvider(DISPATCHER_EVENTS_CONSUMER, DISPATCHER_EVENTS, EndpointDisabledNotifier, (notifier) => (envelope, manager) => notifier.handle(envelope, manager)),
    WebhooksClient,
    OptionalIdempotencyInterceptor,
  ],
  // The dashboard's developer page acts through the same service and client as the API's routes.
  exports: [WebhookEndpointsService, WebhooksClient],
})
export class WebhookEndpointsModule {}
