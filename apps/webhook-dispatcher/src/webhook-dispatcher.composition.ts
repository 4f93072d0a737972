// The webhook-dispatcher's parts, built in one place: the Nest module, the in-process test harness and the
// webhook benchmark all call createDispatcher, so what they run is what production runs.
import { OutboxWriter } from '@payments/messaging';
import type { DataSource } from 'typeorm';
import { CommandResultsRepository } from './deliveries/command-results.repository';
import { DeliveriesRepository } from './deliveries/deliveries.repository';
import { DeliveriesService } from './deliveries/deliveries.service';
import { DeliveryRunner, type DeliveryRunnerSettings } from './deliveries/delivery.runner';
import { DeliveryWorker, type DeliveryWorkerOptions } from './deliveries/delivery.worker';
import { WebhookSender, type WebhookSenderOptions } from './deliveries/webhook.sender';
import { CatchUpSweep } from './endpoints/catch-up.sweep';
import { EndpointEventsHandler } from './endpoints/endpoint-events.handler';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { EventsRepository } from './events/events.repository';
import { PublicEventsHandler } from './events/public-events.handler';
import { RetentionJob } from './retention/retention.job';
import { WebhooksDatabase } from './shared/webhooks-database';

/** As long as the gateway keeps an Idempotency-Key's replay record (IDEMPOTENCY_TTL_SECONDS' default). */
const COMMAND_RESULT_RETENTION_MS = 24 * 3600 * 1000;

export interface DispatcherSettings {
  schema: string;
  sender: WebhookSenderOptions;
  delivery: DeliveryRunnerSettings;
  /** Received events are kept this long for resends and replays. */
  eventRetentionDays: number;
}

export interface Dispatcher {
  db: WebhooksDatabase;
  endpoints: EndpointsRepository;
  events: EventsRepository;
  deliveries: DeliveriesRepository;
  endpointEvents: EndpointEventsHandler;
  publicEvents: PublicEventsHandler;
  sender: WebhookSender;
  runner: DeliveryRunner;
  service: DeliveriesService;
  catchUp: CatchUpSweep;
  retention: RetentionJob;
  /** A delivery worker running this dispatcher's attempts. */
  worker(options: DeliveryWorkerOptions): DeliveryWorker;
}

export function createDispatcher(dataSource: DataSource, settings: DispatcherSettings): Dispatcher {
  const db = new WebhooksDatabase(dataSource, settings.schema);
  const endpoints = new EndpointsRepository(db);
  const events = new EventsRepository(db);
  const deliveries = new DeliveriesRepository(db);
  const commandResults = new CommandResultsRepository(db.table('command_results'));
  const sender = new WebhookSender(settings.sender);
  const runner = new DeliveryRunner(db, deliveries, endpoints, sender, settings.delivery, new OutboxWriter({ schema: settings.schema }));
  const catchUp = new CatchUpSweep(db, deliveries);
  return {
    db,
    endpoints,
    events,
    deliveries,
    endpointEvents: new EndpointEventsHandler(db, endpoints, deliveries, events, catchUp),
    publicEvents: new PublicEventsHandler(deliveries),
    sender,
    runner,
    service: new DeliveriesService(db, endpoints, events, deliveries, commandResults, settings.eventRetentionDays),
    catchUp,
    retention: new RetentionJob(events, settings.eventRetentionDays, () =>
      commandResults.prune(db.dataSource.manager, new Date(Date.now() - COMMAND_RESULT_RETENTION_MS)),
    ),
    worker: (options) => new DeliveryWorker(db, deliveries, (claimed, sent, retryAt) => runner.run(claimed, sent, retryAt), options),
  };
}
