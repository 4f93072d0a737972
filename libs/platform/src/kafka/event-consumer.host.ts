import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap, Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ServiceConfig } from '@payments/config';
import { deadLetterTopic } from '@payments/events';
import { ensureTopics, EventConsumer, type BeforeCommit, type ClaimedWrites, type EventHandler } from '@payments/messaging';
import type { Kafka, Producer } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { consumerLag, eventsDeadLettered } from '../metrics/metrics';
import { KAFKA, KAFKA_PRODUCER } from './kafka.tokens';

/** A handler, or a handler with a step per transaction before it commits (see BeforeCommit), or with its run's writes made with the inbox claim (see ClaimedWrites). */
export type ConsumerHandler = EventHandler | { handle: EventHandler; beforeCommit: BeforeCommit } | { handle: EventHandler; claimedWrites: ClaimedWrites };

export interface ConsumerDefinition {
  /** Inbox and consumer-group name, stable across instances (e.g. `ledger.payments`). */
  name: string;
  /** Topic streams to read, e.g. `sessions.events` (namespace and version are added). */
  topics: (namespace: string) => string[];
  /**
   * The service is ready only once this consumer has joined its group: for services whose work is consuming
   * (the webhook-dispatcher), so "ready" after a restart means its events flow. Others (the gateway) are ready
   * at once and the consumer joins in the background; after a crash a join first waits out the dead member's
   * session (up to KAFKA_SESSION_TIMEOUT_MS).
   */
  readyOnceJoined?: boolean;
  /** The event types the handler acts on; others pass without a transaction or an inbox row (default: all). */
  eventTypes?: readonly string[];
  /** Events of those types the handler has nothing to do for, told by their headers (EventConsumerOptions.skips). */
  skips?: (headers: Readonly<Record<string, string>>) => boolean;
  /**
   * How late this consumer may handle an event so that, at ordinary rates, a span's events share one fetch,
   * transaction and offset commit (EventConsumerOptions.lingerMs). Only for consumers no merchant waits on.
   */
  lingerMs?: number;
}

/**
 * Runs one EventConsumer for the app: starts after boot, and at shutdown stops fetching, finishes the message in
 * flight and commits before the database and producer close. A consumer that halts (dead-lettering failed) takes
 * the instance out of service rather than skipping events.
 */
export class EventConsumerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly consumer: EventConsumer;
  private readonly topics: string[];
  private readonly name: string;
  private readonly readyOnceJoined: boolean;
  private stopping = false;

  constructor(definition: ConsumerDefinition, handler: ConsumerHandler, private readonly kafka: Kafka, producer: Producer, dataSource: DataSource, config: ServiceConfig, logger: PinoLogger) {
    this.topics = definition.topics(config.KAFKA_NAMESPACE);
    this.name = definition.name;
    this.readyOnceJoined = definition.readyOnceJoined ?? false;
    // The partitions this instance reported lag for, dropped at a rebalance so a moved one is not reported twice.
    const reported = new Set<string>();
    // Series start at 0: Prometheus sees no increase in a counter whose first sample is already 1.
    for (const topic of this.topics) eventsDeadLettered.inc({ consumer: definition.name, topic }, 0);
    this.consumer = new EventConsumer({
      kafka,
      producer,
      dataSource,
      groupId: `${config.KAFKA_NAMESPACE}.${definition.name}`,
      consumerName: definition.name,
      topics: this.topics,
      ...(definition.eventTypes ? { eventTypes: definition.eventTypes } : {}),
      ...(definition.skips ? { skips: definition.skips } : {}),
      ...(definition.lingerMs ? { lingerMs: definition.lingerMs } : {}),
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      ...(typeof handler === 'function'
        ? { handler }
        : 'claimedWrites' in handler
          ? { handler: handler.handle, claimedWrites: handler.claimedWrites }
          : { handler: handler.handle, beforeCommit: handler.beforeCommit }),
      logger,
      observer: {
        deadLettered: (topic) => eventsDeadLettered.inc({ consumer: definition.name, topic }),
        lag: (topic, partition, messages) => {
          reported.add(`${topic}\u0000${partition}`);
          consumerLag.set({ consumer: definition.name, topic, partition: String(partition) }, messages);
        },
        rebalanced: () => {
          for (const key of reported) {
            const [topic, partition] = key.split('\u0000') as [string, string];
            consumerLag.remove({ consumer: definition.name, topic, partition });
          }
          reported.clear();
        },
      },
      onFatal: (error) => {
        new Logger('EventConsumer').error({ err: error, consumer: definition.name }, 'consumer halted; exiting so the instance restarts');
        process.kill(process.pid, 'SIGTERM');
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // The consumer subscribes without creating topics: a stream nobody has published to yet (and its dead-letter
    // topic) is created first, so the subscription does not race the publisher's first write.
    await ensureTopics(this.kafka, [...this.topics, ...this.topics.map(deadLetterTopic)]);
    if (this.readyOnceJoined) {
      await this.consumer.start();
      return;
    }
    // In the background (see ConsumerDefinition.readyOnceJoined). A new group reads from the earliest offset, so
    // nothing published before the join is skipped.
    this.consumer.start().catch((error: unknown) => {
      if (this.stopping) return;
      new Logger('EventConsumer').error({ err: error, consumer: this.name }, 'consumer did not start; exiting so the instance restarts');
      process.kill(process.pid, 'SIGTERM');
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.consumer.stop();
  }

  stats() {
    return this.consumer.stats();
  }
}

/**
 * A provider running `definition` with the handler of an injectable class, e.g.
 * `eventConsumerProvider(PAYMENTS_CONSUMER, { name: 'ledger.payments', topics }, LedgerProjector, (p) => p.handle)`.
 */
export function eventConsumerProvider<T>(
  token: string | symbol,
  definition: ConsumerDefinition,
  handlerOwner: new (...args: never[]) => T,
  pick: (owner: T) => ConsumerHandler,
): Provider {
  return {
    provide: token,
    inject: [handlerOwner, KAFKA, KAFKA_PRODUCER, getDataSourceToken(), ServiceConfig, PinoLogger],
    useFactory: (owner: T, kafka: Kafka, producer: Producer, dataSource: DataSource, config: ServiceConfig, logger: PinoLogger) => {
      const handler = pick(owner);
      return new EventConsumerHost(definition, typeof handler === 'function' ? handler.bind(owner) : handler, kafka, producer, dataSource, config, logger);
    },
  };
}

