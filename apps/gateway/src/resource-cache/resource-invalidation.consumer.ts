import { Logger } from '@nestjs/common';
import { topicName, STREAMS } from '@payments/events';
import { createKafka, ensureTopics } from '@payments/messaging';
import type { Consumer } from 'kafkajs';
import type { ResourceCache } from './resource-cache';
import { resourcesChangedBy } from './resource-invalidation';

/** How long start waits for the consumer group to take this instance in (see start). */
const JOIN_WAIT_MS = 1000;

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
  private running: Promise<void> | undefined;

  constructor(
    private readonly cache: ResourceCache,
    private readonly options: ResourceInvalidationOptions,
  ) {}

  async start(): Promise<void> {
    if (!this.cache.enabled) return;
    const { brokers, namespace, instanceId, sessionTimeoutMs } = this.options;
    const kafka = createKafka({ brokers, clientId: `gateway-${instanceId}-resource-cache` });
    const topic = topicName(namespace, STREAMS.sessions);
    await ensureTopics(kafka, [topic]);
    const consumer = kafka.consumer({
      groupId: `${namespace}.gateway.resource-cache`,
      maxWaitTimeInMs: 1000,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: Math.floor(sessionTimeoutMs / 6),
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, (event) => this.logger.warn({ err: event.payload.error }, 'resource invalidation consumer crashed; it restarts'));
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    // run() returns once the group is joined. A new group joins in well under a second, and start waits for that,
    // so no event after the gateway is ready is skipped; but after a crash the group first waits out the dead
    // member's session (up to KAFKA_SESSION_TIMEOUT_MS), and the gateway does not wait that long to serve: its own
    // commands invalidate directly, and reads already show a session past expires_at as expired.
    this.running = consumer
      .run({
        eachBatch: async ({ batch }) => {
          // Creations (every create's event) change nothing cached: skipped by their header, before any parsing.
          const changing = batch.messages.filter((m) => !String(m.headers?.['event-type'] ?? '').endsWith('.created'));
          if (changing.length > 0) await this.cache.invalidate(resourcesChangedBy(changing.map((m) => m.value)));
        },
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'resource invalidation consumer did not start'));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, JOIN_WAIT_MS)))]);
    clearTimeout(timer);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
    await this.running;
  }
}
