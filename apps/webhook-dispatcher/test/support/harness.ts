// The dispatcher as operators run it (built, its own process) on a fresh database and Kafka namespace, the
// topics it reads fed as the sessions service and the gateway feed them, and the gateway's commands.
import { Logger } from '@nestjs/common';
import {
  WEBHOOKS_COMMANDS,
  WEBHOOKS_SERVICE,
  type DeliveryList,
  type DeliveryView,
  type ListDeliveriesCommand,
  type ReplayEndpointCommand,
  type ReplayResult,
  type ResendDeliveryCommand,
  type SendTestEventCommand,
} from '@payments/contracts';
import { STREAMS, topicName, validateEnvelope, type EventEnvelope } from '@payments/events';
import { createKafka, createProducer, ensureTopics, envelopeHeaders } from '@payments/messaging';
import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { commandPattern, CommandClient, ServiceClient } from '@payments/platform';
import {
  createTestDatabase,
  freePort,
  startService,
  TEST_KAFKA_BROKERS,
  uniqueName,
  waitFor,
  type RunningService,
  type TestDatabase,
} from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { endpointEvent, type TestEndpoint } from './fixtures';

// The command client logs its Kafka joins at log level; tests only want to see what went wrong.
Logger.overrideLogger(['error', 'warn']);

export const SCHEMA = 'webhooks';

/** Development settings for tests: loopback http receivers, short retries, quick polling. */
export const TEST_SETTINGS: Record<string, string> = {
  WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
  WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300,300',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  LOG_LEVEL: 'warn',
};

/** The gateway's commands; `commandId` as the gateway sends it (the merchant's Idempotency-Key), else a fresh one. */
export interface WebhooksCommands {
  list(body: ListDeliveriesCommand): Promise<DeliveryList>;
  resend(body: ResendDeliveryCommand, commandId?: string): Promise<DeliveryView>;
  replay(body: ReplayEndpointCommand, commandId?: string): Promise<ReplayResult>;
  sendTest(body: SendTestEventCommand, commandId?: string): Promise<DeliveryView>;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  kind: string;
  status: string;
  attempt_count: number;
  failure_reason: string | null;
}

export interface Harness {
  db: TestDatabase;
  namespace: string;
  /** Starts one dispatcher process (several may run at once). */
  startDispatcher(env?: Record<string, string>): Promise<RunningService>;
  publish(stream: 'sessions' | 'refunds' | 'gateway', envelopes: EventEnvelope<unknown>[]): Promise<void>;
  /** Publishes the endpoint's event and waits until the dispatcher holds that version. */
  configure(endpoint: TestEndpoint, type?: Parameters<typeof endpointEvent>[1]): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  deliveriesOf(eventId: string): Promise<DeliveryRow[]>;
  /** Waits until a consumer of the dispatcher has handled the event (it is in the inbox). */
  handled(eventId: string): Promise<void>;
  /** Waits until every delivery of the event has finished (succeeded or failed). */
  settled(eventId: string, count?: number): Promise<DeliveryRow[]>;
  commands(): Promise<WebhooksCommands>;
  close(): Promise<void>;
}

export async function createHarness(prefix: string): Promise<Harness> {
  const db = await createTestDatabase(prefix);
  const namespace = uniqueName(prefix);
  const kafka = createKafka({ brokers: TEST_KAFKA_BROKERS, clientId: uniqueName('wd-test') });
  const topics = { sessions: topicName(namespace, STREAMS.sessions), refunds: topicName(namespace, STREAMS.refunds), gateway: topicName(namespace, STREAMS.gateway) };
  await ensureTopics(kafka, Object.values(topics));
  const producer: Producer = createProducer(kafka);
  await producer.connect();
  const services: RunningService[] = [];
  let dataSource: DataSource | undefined;
  let commandClient: { client: { close(): Promise<void> }; commands: WebhooksCommands } | undefined;

  const query = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    // Opened after the first dispatcher migrated the schema.
    dataSource ??= await db.dataSource(SCHEMA);
    return (await dataSource.query(sql, params)) as T[];
  };

  const deliveriesOf = (eventId: string) =>
    query<DeliveryRow>(
      `SELECT id, endpoint_id, event_id, kind, status, attempt_count, failure_reason FROM ${SCHEMA}.deliveries WHERE event_id = $1 ORDER BY created_at`,
      [eventId],
    );

  const harness: Harness = {
    db,
    namespace,
    async startDispatcher(env = {}) {
      const service = await startService('webhook-dispatcher', {
        DATABASE_URL: db.url,
        KAFKA_NAMESPACE: namespace,
        PORT: String(await freePort()),
        ...TEST_SETTINGS,
        ...env,
      });
      services.push(service);
      return service;
    },
    async publish(stream, envelopes) {
      await producer.send({
        topic: topics[stream],
        acks: -1,
        messages: envelopes.map((envelope) => {
          validateEnvelope(envelope);
          return { key: envelope.aggregate_id, value: JSON.stringify(envelope), headers: envelopeHeaders(envelope) };
        }),
      });
    },
    async configure(endpoint, type) {
      await harness.publish('gateway', [endpointEvent(endpoint, type)]);
      await waitFor(
        async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA}.endpoints WHERE id = $1 AND sequence >= $2`, [endpoint.snapshot.id, endpoint.sequence]))[0]!.n === 1,
        30_000,
        `endpoint ${endpoint.snapshot.id} v${endpoint.sequence} at the dispatcher`,
      );
    },
    query,
    deliveriesOf,
    async handled(eventId) {
      await waitFor(
        async () => (await query(`SELECT 1 FROM ${SCHEMA}.inbox WHERE event_id = $1`, [eventId])).length > 0,
        30_000,
        `event ${eventId} handled by the dispatcher`,
      );
    },
    async settled(eventId, count = 1) {
      let rows: DeliveryRow[] = [];
      await waitFor(
        async () => {
          rows = await deliveriesOf(eventId);
          return rows.length >= count && rows.every((row) => row.status !== 'pending');
        },
        30_000,
        `${count} finished deliveries of ${eventId}`,
      );
      return rows;
    },
    async commands() {
      if (commandClient) return commandClient.commands;
      const dispatcher = services.find((service) => service.commandUrl && service.process.exitCode === null);
      if (!dispatcher) throw new Error('start the dispatcher before sending it commands');
      const client = new CommandClient({ upstreams: { [WEBHOOKS_SERVICE]: [dispatcher.commandUrl!] }, secrets: [dispatcher.env.COMMAND_SECRET ?? DEVELOPMENT_COMMAND_SECRET] });
      const service = new ServiceClient(client, 20_000);
      const send = <T>(name: string, body: unknown, commandId?: string) =>
        service.request<T>(commandPattern(WEBHOOKS_SERVICE, name), body, { correlationId: uniqueName('req'), retryable: false, commandId });
      const commands: WebhooksCommands = {
        list: (body) => send(WEBHOOKS_COMMANDS.listDeliveries, body),
        resend: (body, commandId) => send(WEBHOOKS_COMMANDS.resendDelivery, body, commandId),
        replay: (body, commandId) => send(WEBHOOKS_COMMANDS.replayEndpoint, body, commandId),
        sendTest: (body, commandId) => send(WEBHOOKS_COMMANDS.sendTestEvent, body, commandId),
      };
      commandClient = { client, commands };
      return commands;
    },
    async close() {
      const errors: unknown[] = [];
      const attempt = async (step: () => Promise<unknown>) => {
        await step().catch((error: unknown) => errors.push(error));
      };
      if (commandClient) await attempt(() => commandClient!.client.close());
      await Promise.all(services.map((service) => attempt(() => service.stop())));
      await attempt(() => producer.disconnect());
      await attempt(() => db.drop());
      if (errors.length > 0) throw new AggregateError(errors, 'harness cleanup failed');
    },
  };
  return harness;
}
