// The dispatcher's parts wired in process on a real database (no Kafka, no Nest): for tests that drive claims,
// attempts and endpoint health step by step.
import type { EventEnvelope } from '@payments/events';
import { OutboxWriter } from '@payments/messaging';
import type { DataSource } from 'typeorm';
import { DeliveriesRepository } from '../../src/deliveries/deliveries.repository';
import { DeliveryRunner } from '../../src/deliveries/delivery.runner';
import { WebhookSender, type WebhookSenderOptions } from '../../src/deliveries/webhook.sender';
import { EndpointEventsHandler } from '../../src/endpoints/endpoint-events.handler';
import { EndpointsRepository } from '../../src/endpoints/endpoints.repository';
import { EventsRepository } from '../../src/events/events.repository';
import { PublicEventsHandler } from '../../src/events/public-events.handler';
import { WebhooksDatabase } from '../../src/shared/webhooks-database';
import { SECRETS_KEY } from './fixtures';

export interface InProcessDispatcher {
  webhooks: WebhooksDatabase;
  deliveries: DeliveriesRepository;
  runner: DeliveryRunner;
  sender: WebhookSender;
  /** Applies a gateway endpoint event, as the consumer would. */
  apply(envelope: EventEnvelope<unknown>): Promise<unknown>;
  /** Receives a public event, as the consumer would. */
  receive(envelope: EventEnvelope<unknown>): Promise<unknown>;
}

export function inProcessDispatcher(dataSource: DataSource, retryScheduleMs: readonly number[], sending: Partial<WebhookSenderOptions> = {}): InProcessDispatcher {
  const webhooks = new WebhooksDatabase(dataSource, 'webhooks');
  const endpoints = new EndpointsRepository(webhooks);
  const events = new EventsRepository(webhooks);
  const deliveries = new DeliveriesRepository(webhooks);
  const endpointEvents = new EndpointEventsHandler(webhooks, endpoints, deliveries, events);
  const publicEvents = new PublicEventsHandler(events, deliveries);
  const sender = new WebhookSender({ timeoutMs: 5000, allowInsecure: true, ...sending });
  const runner = new DeliveryRunner(
    webhooks,
    deliveries,
    endpoints,
    sender,
    {
      userAgent: 'PaymentsWebhooks/1.0',
      retryScheduleMs,
      disableAfterMs: 5 * 24 * 3600 * 1000,
      secretsKey: SECRETS_KEY,
      eventsTopic: 'test.webhooks.events.v1',
    },
    new OutboxWriter({ schema: 'webhooks' }),
  );
  return {
    webhooks,
    deliveries,
    runner,
    sender,
    apply: (envelope) => dataSource.transaction((manager) => endpointEvents.handle(envelope as EventEnvelope, manager)),
    receive: (envelope) => dataSource.transaction((manager) => publicEvents.handle(envelope as EventEnvelope, manager)),
  };
}
