import { Logger } from '@nestjs/common';
import { deadLetterTopic, topicName, STREAMS } from '@payments/events';
import { createKafka, DeadLetterPublisher, ensureTopics, sessionTimeoutFor } from '@payments/messaging';
import { metricsRegistry } from '@payments/platform';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { Counter } from 'prom-client';
import type { ResourceCache } from './resource-cache';
import { resourcesChangedBy } from './resource-invalidation';

const malformedEvents = new Counter({
  name: 'resource_invalidation_malformed_events_total',
  help: 'Sessions events the gateway could not read; each was dead-lettered and its cached resource dropped.',
  registers: [metricsRegistry],
});

/** How long start waits for the consumer group to take this instance in (see start). */
const JOIN_WAIT_MS = 1000;
/** How long after a crash kafkajs will not recover from a new consumer is started. */
const REJOIN_DELAY_MS = 1000;
/**
 * After a fetch that brought events, the next one waits this long (less the handling): every create's event passes
 * through here only to be skipped, and fetching each as it came cost the gateway and the broker a fetch and a
 * commit per create. A change made inside sessions reaches GETs at most this much later. (A broker-side wait for
 * a fetch's bytes did the same under load but woke every idle gateway ten times a second.)
 */
const FETCH_LINGER_MS = 100;
/** An idle fetch's wait: it answers as soon as an event comes, so this only sets how often an idle gateway asks. */
const FETCH_WAIT_MS = 1000;

export interface ResourceInvalidationOptions {
  brokers: string[];
  namespace: string;
  instanceId: string;
  /** See KAFKA_SESSION_TIMEOUT_MS: how long a crashed gateway's partitions wait before moving. */
  sessionTimeoutMs: number;
}

/**
 * Follows the sessions event topic and invalidates the cached resources each event changed, so changes made
 * inside sessions (expiry, and any future writer) reach GETs. One consumer group for all gateway instances: the
 * cache is shared. A batch whose invalidation Redis refused is not committed and comes again.
 */
export class ResourceInvalidationConsumer {
  private readonly logger = new Logger('ResourceInvalidation');
  private consumer: Consumer | undefined;
  private producer: Producer | undefined;
  private running: Promise<void> | undefined;
  private rejoin: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly cache: ResourceCache,
    private readonly options: ResourceInvalidationOptions,
  ) {}

  async start(): Promise<void> {
    if (!this.cache.enabled) return;
    const { brokers, namespace, instanceId } = this.options;
    const kafka = createKafka({ brokers, clientId: `gateway-${instanceId}-resource-cache` });
    const topic = topicName(namespace, STREAMS.sessions);
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const producer = kafka.producer();
    this.producer = producer;
    await producer.connect();
    const deadLetters = new DeadLetterPublisher(producer, 'gateway.resource-cache');
    await this.join(kafka, topic, deadLetters);
  }

  private async join(kafka: Kafka, topic: string, deadLetters: DeadLetterPublisher): Promise<void> {
    const { namespace } = this.options;
    const logger = this.logger;
    const sessionTimeoutMs = await sessionTimeoutFor(kafka, this.options.sessionTimeoutMs, {
      debug: (context, message) => logger.debug(context, message),
      info: (context, message) => logger.log(context, message),
      warn: (context, message) => logger.warn(context, message),
      error: (context, message) => logger.error(context, message),
    });
    const consumer = kafka.consumer({
      groupId: `${namespace}.gateway.resource-cache`,
      maxWaitTimeInMs: FETCH_WAIT_MS,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: Math.floor(sessionTimeoutMs / 6),
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger.warn({ err: payload.error, restart: payload.restart }, 'resource invalidation consumer crashed');
      // kafkajs does not come back from a crash it deems final: without a consumer, GETs would serve what
      // sessions changed since. A new consumer takes over after a pause.
      if (payload.restart || this.stopping) return;
      this.rejoin = setTimeout(() => {
        this.join(kafka, topic, deadLetters).catch((error: unknown) => this.logger.error({ err: error }, 'resource invalidation consumer did not restart'));
      }, REJOIN_DELAY_MS);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    // run() returns once the group is joined. A new group joins in well under a second, and start waits for that,
    // so no event after the gateway is ready is skipped; but after a crash the group first waits out the dead
    // member's session (up to KAFKA_SESSION_TIMEOUT_MS), and the gateway does not wait that long to serve: its own
    // commands invalidate directly, and reads already show a session past expires_at as expired.
    this.running = consumer
      .run({
        // Offsets committed once a second, not after every batch (see EventConsumer): an invalidation done again
        // after a crash only drops a cached copy once more.
        autoCommitInterval: 1000,
        autoCommitEveryBatch: false,
        // The partitions of a fetch side by side, so their lingers overlap: one after another, a fetch with
        // events on three partitions held the next fetch three lingers long.
        partitionsConsumedConcurrently: 3,
        eachBatch: async ({ batch }) => {
          const started = performance.now();
          await this.handleBatch(batch, deadLetters);
          // kafkajs fetches again once the fetch's batches returned (see FETCH_LINGER_MS).
          const linger = FETCH_LINGER_MS - (performance.now() - started);
          if (linger > 1 && !this.stopping) await new Promise((resolve) => setTimeout(resolve, linger));
        },
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'resource invalidation consumer did not start'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, JOIN_WAIT_MS)))]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.rejoin);
    await this.consumer?.disconnect();
    await this.running;
    await this.producer?.disconnect();
  }

  /** One partition's events: the resources they change leave the cache (unreadable ones are dead-lettered first). */
  private async handleBatch(batch: { topic: string; partition: number; messages: KafkaMessage[] }, deadLetters: DeadLetterPublisher): Promise<void> {
    // Creations (every create's event) change nothing cached: skipped by their header, before any parsing.
    const changing = batch.messages.filter((m) => !String(m.headers?.['event-type'] ?? '').endsWith('.created'));
    if (changing.length === 0) return;
    const { changed, malformed } = resourcesChangedBy(changing);
    // Parked before the batch is committed: a failed publish leaves the batch to come again.
    if (malformed.length > 0) await this.deadLetter(deadLetters, batch.topic, batch.partition, malformed);
    await this.cache.invalidate(changed);
  }

  private async deadLetter(deadLetters: DeadLetterPublisher, topic: string, partition: number, messages: readonly KafkaMessage[]): Promise<void> {
    this.logger.error({ topic, count: messages.length, keys: messages.map((m) => m.key?.toString() ?? null) }, 'unreadable sessions events: dead-lettered, their cached resources dropped');
    await deadLetters.publishAll(topic, messages.map((message) => ({ message, where: { topic, partition } })), 'not a readable event', 1);
    malformedEvents.inc(messages.length);
  }
}
