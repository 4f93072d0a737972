import { deadLetterTopic, validateEnvelope, type EventEnvelope } from '@payments/events';
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { DataSource, EntityManager } from 'typeorm';
import { ACKS_ALL } from './kafka.factory';
import { errorMessage, jsonLogger, type MessagingLogger } from './messaging.logger';
import { assertSchemaName, qualified } from './sql-names';
import { backoffDelay, sleep } from './wakeup';

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka timestamp of the message (ms since epoch, as a string): when the relay sent it. */
  timestamp: string;
  headers: Record<string, string>;
  /** 1 on the first try, then 2, 3, ... while the handler is retried. */
  attempt: number;
}

/** Applies one event. Runs inside the transaction that records it in the inbox: use `manager` for every write. */
export type EventHandler = (envelope: EventEnvelope, manager: EntityManager, ctx: MessageContext) => Promise<void>;

export type HandleOutcome = 'handled' | 'duplicate';

export interface EventConsumerHooks {
  /**
   * Runs after the transaction committed and before the offset is resolved. Tests throw here to die at that
   * point: the consumer then stops without resolving the offset, like a crashed process.
   */
  afterHandle?(envelope: EventEnvelope, outcome: HandleOutcome): void | Promise<void>;
}

export interface EventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  dataSource: DataSource;
  /** Inbox key: one name per logical consumer (the same across its instances). */
  consumerName: string;
  handler: EventHandler;
  retry?: { attempts?: number; initialMs?: number; maxMs?: number };
  /** Connected producer used for dead-lettering; owned by the caller. */
  producer: Producer;
  /** Schema holding the inbox; defaults to the one the DataSource is configured with. */
  schema?: string;
  /** A new group starts at the beginning of the topics (default), so no event published before it is missed. */
  fromBeginning?: boolean;
  partitionsConsumedConcurrently?: number;
  sessionTimeoutMs?: number;
  /** Longest a fetch waits for data; also bounds how long stop() waits for the fetch in flight. */
  maxWaitTimeMs?: number;
  /** Called once when the consumer stops itself because it cannot go on (dead-letter publish failed). */
  onFatal?(error: Error): void;
  logger?: MessagingLogger;
  hooks?: EventConsumerHooks;
}

export interface EventConsumerStats {
  handled: number;
  duplicates: number;
  deadLettered: number;
  failedAttempts: number;
}

/** Stops the batch without resolving the current offset; the consumer then shuts itself down. */
class ConsumerHalted extends Error {}

const headerString = (value: IHeaders[string]): string | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(String).join(',') : value.toString();

/**
 * Consumes event topics with exactly-once effects: each message is validated, then recorded in the inbox and
 * handled in one database transaction (a re-delivered event finds its inbox row and has no second effect), and
 * only then is its offset resolved. A handler that keeps failing is retried with backoff and then parked on the
 * topic's dead-letter topic with the reason; nothing is dropped silently and every failure is logged.
 */
export class EventConsumer {
  private readonly attempts: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly inbox: string;
  private readonly logger: MessagingLogger;
  private readonly stopSignal = new AbortController();
  private consumer?: Consumer;
  private stopping?: Promise<void>;
  private fatalError?: Error;
  private readonly counters: EventConsumerStats = { handled: 0, duplicates: 0, deadLettered: 0, failedAttempts: 0 };

  constructor(private readonly options: EventConsumerOptions) {
    this.attempts = Math.max(1, options.retry?.attempts ?? 5);
    this.retryInitialMs = options.retry?.initialMs ?? 100;
    this.retryMaxMs = options.retry?.maxMs ?? 5000;
    const schema = options.schema ?? (options.dataSource.options as { schema?: string }).schema ?? 'public';
    this.inbox = qualified(assertSchemaName(schema), 'inbox');
    this.logger = options.logger ?? jsonLogger('warn', 'event-consumer');
  }

  /** Joins the group and starts consuming (returns once the consumer is running). */
  async start(): Promise<void> {
    if (this.consumer || this.stopping) throw new Error('event consumer already started');
    const consumer = this.options.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 1000,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) =>
      this.logger.error(
        { groupId: this.options.groupId, err: payload.error, restart: payload.restart },
        `kafka consumer crashed: ${payload.error.message}`,
      ),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: this.options.topics, fromBeginning: this.options.fromBeginning ?? true });
    await consumer.run({
      // Offsets are resolved one message at a time and committed in batches: after each fetched batch and
      // at most every second or 100 messages within a long one.
      autoCommit: true,
      autoCommitInterval: 1000,
      autoCommitThreshold: 100,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  /** Stops fetching, lets the message in flight finish, commits resolved offsets and leaves the group. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopSignal.abort();
      const consumer = this.consumer;
      if (!consumer) return;
      // disconnect() stops the runner, which waits for the batch in flight and commits what it resolved.
      await consumer.disconnect();
    })();
    return this.stopping;
  }

  stats(): EventConsumerStats {
    return { ...this.counters };
  }

  /** Set when the consumer stopped itself (dead-letter publish failed, or a hook simulated a crash). */
  get failure(): Error | undefined {
    return this.fatalError;
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload) {
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || this.stopSignal.signal.aborted) break;
      try {
        const done = await this.process(batch.topic, batch.partition, message, heartbeat);
        if (!done) break;
      } catch (error) {
        if (error instanceof ConsumerHalted) break;
        throw error;
      }
      resolveOffset(message.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  /** Returns false when the message was left unprocessed (stopping); its offset must not be resolved. */
  private async process(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
  ): Promise<boolean> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      const text = headerString(value);
      if (text !== undefined) headers[name] = text;
    }
    const where = { topic, partition, offset: message.offset };

    let envelope: EventEnvelope;
    try {
      if (message.value === null) throw new Error('message has no value');
      envelope = validateEnvelope(JSON.parse(message.value.toString('utf8')));
    } catch (error) {
      const reason = `invalid envelope: ${errorMessage(error)}`;
      this.logger.error({ ...where, eventId: headers['event-id'], err: error }, `dead-lettering: ${reason}`);
      await this.deadLetter(topic, partition, message, reason, 0);
      return true;
    }

    const log = { ...where, eventId: envelope.id, eventType: envelope.type };
    for (let attempt = 1; ; attempt += 1) {
      const ctx: MessageContext = {
        ...where,
        key: message.key?.toString('utf8') ?? null,
        timestamp: message.timestamp,
        headers,
        attempt,
      };
      let outcome: HandleOutcome;
      try {
        outcome = await this.handleOnce(envelope, ctx);
      } catch (error) {
        this.counters.failedAttempts += 1;
        // An unreachable database is an outage, not a bad event: keep retrying (at the longest delay)
        // instead of parking events that would succeed a minute later.
        const outage = attempt >= this.attempts && !(await this.databaseReachable());
        if (attempt >= this.attempts && !outage) {
          this.logger.error({ ...log, attempt, err: error }, `handler failed ${attempt} times, dead-lettering`);
          await this.deadLetter(topic, partition, message, errorMessage(error), attempt);
          return true;
        }
        const delayMs = outage ? this.retryMaxMs : backoffDelay(attempt, this.retryInitialMs, this.retryMaxMs);
        this.logger.warn({ ...log, attempt, retryInMs: delayMs, err: error }, `handler failed, retrying: ${errorMessage(error)}`);
        await sleep(delayMs, this.stopSignal.signal);
        // Stopping during a backoff: leave the message for whoever owns the partition next.
        if (this.stopSignal.signal.aborted) return false;
        await heartbeat();
        continue;
      }

      if (outcome === 'duplicate') {
        this.counters.duplicates += 1;
        this.logger.debug(log, 'duplicate event skipped (already in inbox)');
      } else {
        this.counters.handled += 1;
      }
      try {
        await this.options.hooks?.afterHandle?.(envelope, outcome);
      } catch (error) {
        this.halt(error, log);
      }
      return true;
    }
  }

  private async databaseReachable(): Promise<boolean> {
    try {
      await this.options.dataSource.query('SELECT 1');
      return true;
    } catch (error) {
      this.logger.error({ err: error, groupId: this.options.groupId }, 'database unreachable; events wait for it');
      return false;
    }
  }

  private async handleOnce(envelope: EventEnvelope, ctx: MessageContext): Promise<HandleOutcome> {
    return this.options.dataSource.transaction(async (manager) => {
      const inserted = (await manager.query(
        `INSERT INTO ${this.inbox} (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
        [this.options.consumerName, envelope.id],
      )) as unknown[];
      if (inserted.length === 0) return 'duplicate';
      await this.options.handler(envelope, manager, ctx);
      return 'handled';
    });
  }

  private async deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: string,
    attempts: number,
  ): Promise<void> {
    try {
      await this.options.producer.send({
        topic: deadLetterTopic(topic),
        acks: ACKS_ALL,
        messages: [
          {
            key: message.key,
            value: message.value,
            headers: {
              ...message.headers,
              'dlq-reason': reason,
              'dlq-original-topic': topic,
              'dlq-original-partition': String(partition),
              'dlq-original-offset': message.offset,
              'dlq-attempts': String(attempts),
              'dlq-failed-at': new Date().toISOString(),
              'dlq-consumer': this.options.consumerName,
            },
          },
        ],
      });
      this.counters.deadLettered += 1;
    } catch (error) {
      // Skipping would lose the event: stop here and let the next owner of the partition try again.
      this.halt(error, { topic, partition, offset: message.offset, reason });
    }
  }

  /** Leaves the current offset unresolved and shuts the consumer down, the way a crashed process would. */
  private halt(error: unknown, context: Record<string, unknown>): never {
    const fatal = error instanceof Error ? error : new Error(String(error));
    this.fatalError ??= fatal;
    this.logger.error({ ...context, err: fatal }, `event consumer stopping: ${fatal.message}`);
    // Not awaited: disconnect waits for this very batch to return.
    void this.stop().then(
      () => this.options.onFatal?.(fatal),
      (stopError: unknown) => this.logger.error({ err: stopError }, 'event consumer failed to stop cleanly'),
    );
    throw new ConsumerHalted(fatal.message);
  }
}
