// The dispatcher's parts wired in process on a real database (no Kafka, no Nest): for tests that drive claims,
// attempts and endpoint health step by step. Built by createDispatcher, as the service is.
import type { EventEnvelope } from '@payments/events';
import type { DataSource } from 'typeorm';
import type { DeliveriesRepository } from '../../src/deliveries/deliveries.repository';
import type { CatchUpSweep } from '../../src/endpoints/catch-up.sweep';
import type { DeliveryRunner } from '../../src/deliveries/delivery.runner';
import type { WebhookSender, WebhookSenderOptions } from '../../src/deliveries/webhook.sender';
import type { WebhooksDatabase } from '../../src/shared/webhooks-database';
import { createDispatcher, type Dispatcher } from '../../src/webhook-dispatcher.composition';
import { SECRETS_KEY } from './fixtures';

export interface InProcessDispatcher {
  webhooks: WebhooksDatabase;
  deliveries: DeliveriesRepository;
  runner: DeliveryRunner;
  sender: WebhookSender;
  worker: Dispatcher['worker'];
  /** Not started: call onApplicationBootstrap (and onModuleDestroy after) to run it as the service does. */
  catchUp: CatchUpSweep;
  /** Applies a gateway endpoint event, as the consumer would. */
  apply(envelope: EventEnvelope<unknown>): Promise<unknown>;
  /**
   * Receives a public event in a transaction of its own, as the consumer would; answers its outcome. `whileOpen`
   * runs after the event's writes, before its commit (another transaction racing it).
   */
  receive(envelope: EventEnvelope<unknown>, whileOpen?: () => Promise<unknown>): Promise<unknown>;
}

export function inProcessDispatcher(dataSource: DataSource, retryScheduleMs: readonly number[], sending: Partial<WebhookSenderOptions> = {}): InProcessDispatcher {
  const dispatcher = createDispatcher(dataSource, {
    schema: 'webhooks',
    sender: { timeoutMs: 5000, allowInsecure: true, ...sending },
    delivery: {
      userAgent: 'PaymentsWebhooks/1.0',
      retryScheduleMs,
      disableAfterMs: 5 * 24 * 3600 * 1000,
      secretsKey: SECRETS_KEY,
      eventsTopic: 'test.webhooks.events.v1',
    },
    eventRetentionDays: 30,
  });
  return {
    webhooks: dispatcher.db,
    deliveries: dispatcher.deliveries,
    runner: dispatcher.runner,
    sender: dispatcher.sender,
    worker: dispatcher.worker,
    catchUp: dispatcher.catchUp,
    apply: (envelope) => dataSource.transaction((manager) => dispatcher.endpointEvents.handle(envelope as EventEnvelope, manager)),
    receive: (envelope, whileOpen) =>
      dataSource.transaction(async (manager) => {
        await dispatcher.publicEvents.handle(envelope as EventEnvelope, manager);
        const outcome = (await dispatcher.publicEvents.beforeCommit(manager)).get(envelope.id) ?? { stored: false };
        await whileOpen?.();
        return outcome;
      }),
  };
}
