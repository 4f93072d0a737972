import type { EventEnvelope } from '@payments/events';
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { decodeMessage, type DecodedMessage, type ValidMessage } from './consumer-message.decoder';
import { DeadLetterPublisher } from './dead-letter.publisher';
import { EventRefused, type BeforeCommit, type ClaimedWrites, type EventHandler, type HandleOutcome } from './event-handler';
import { InboxPruner } from './inbox.pruner';
import { InboxStore } from './inbox.store';
import { InboxTransactions } from './inbox.transactions';
import { errorMessage, jsonLogger, type MessagingLogger } from './messaging.logger';
import { assertSchemaName, isDatabaseTimeout, qualified } from '@payments/database';
import { backoffDelay, sleep } from './wakeup';
import { sessionTimeoutFor } from './session-timeout';

/**
 * A crashed member's partitions move after this much (plus a fetch wait and a rebalance): within the 5 s in which
 * a survivor takes over. Brokers accept it only with group.min.session.timeout.ms lowered from Kafka's 6 s.
 */
export const DEFAULT_SESSION_TIMEOUT_MS = 3000;

export interface EventConsumerHooks {
  /**
   * Runs after the transaction committed and before the offset is resolved (once per event, in offset order).
   * Tests throw here to die at that point: the consumer then stops without resolving the offset, like a crashed
   * process.
   */
  afterHandle?(envelope: EventEnvelope, outcome: HandleOutcome): void | Promise<void>;
}

/** What a consumer reports for metrics (the platform turns these into Prometheus series). */
export interface EventConsumerObserver {
  /** A message was parked on `<topic>.dlq`; `topic` is the one it came from. */
  deadLettered?(topic: string, reason: string): void;
  /**
   * Messages of the partition not yet handled: at the start of a fetched batch (the batch included, so a handler
   * stuck on it shows its backlog) and again after it.
   */
  lag?(topic: string, partition: number, messages: number): void;
  /** The group rebalanced: partitions reported before may belong to another member now. */
  rebalanced?(): void;
}

export interface EventConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  dataSource: DataSource;
  /** Inbox key: one name per logical consumer (the same across its instances). */
  consumerName: string;
  handler: EventHandler;
  /** See BeforeCommit. */
  beforeCommit?: BeforeCommit;
  /** See ClaimedWrites (then beforeCommit is not called). */
  claimedWrites?: ClaimedWrites;
  /**
   * The event types the handler acts on; any other is acknowledged without a transaction or an inbox row (it has
   * no effect, so its repeat has none either), and when its `event-type` header names it, without reading its
   * value (hooks then see only its id and type). Default: every type goes through the inbox.
   */
  eventTypes?: readonly string[];
  /**
   * Events of those types the handler has nothing to do for, told by their headers alone (e.g. a header the
   * producer sets from the event's data): acknowledged like other types' events, value unread, no inbox row.
   */
  skips?: (headers: Readonly<Record<string, string>>) => boolean;
  retry?: { attempts?: number; initialMs?: number; maxMs?: number };
  /** Connected producer used for dead-lettering; owned by the caller. */
  producer: Producer;
  /** Schema holding the inbox; defaults to the one the DataSource is configured with. */
  schema?: string;
  /** A new group starts at the beginning of the topics (default), so no event published before it is missed. */
  fromBeginning?: boolean;
  /** Partitions handled at the same time, each in its own transaction on its own connection; default 3. */
  partitionsConsumedConcurrently?: number;
  /** Most events of one partition handled in one transaction; default 200. */
  maxEventsPerTransaction?: number;
  /**
   * How long a crashed member's partitions wait before moving (default 3000, within the brokers' bounds: see
   * sessionTimeoutFor): a kill -9 costs this much, not kafkajs's 30 s default. Heartbeats go every sixth of it.
   */
  sessionTimeoutMs?: number;
  /**
   * How often handled events' offsets are committed (default 1000; also every 100 events, on an idle fetch, at a
   * rebalance and at stop). Events handled since the last commit come again after a crash, as inbox duplicates.
   */
  offsetCommitIntervalMs?: number;
  /** Longest a fetch waits for data; also bounds how long stop() waits for the fetch in flight. */
  maxWaitTimeMs?: number;
  /**
   * After a fetch that brought events, how long (less the time handling them took) before the next fetch: at an
   * ordinary rate that fetch then carries this span's events in one transaction, one commit and one offset commit,
   * where without it every event was its own fetch, transaction and fsync in every consumer. The first event after
   * a quiet spell is handled at once; no event waits longer than this for it. Default 0 (fetch again at once).
   */
  lingerMs?: number;
  /** Deleting inbox rows: how often and how old (keep them longer than any redelivery can come late). */
  prune?: { intervalMs?: number; retentionDays?: number };
  /** Called once when the consumer stops itself because it cannot go on (dead-letter publish failed). */
  onFatal?(error: Error): void;
  logger?: MessagingLogger;
  hooks?: EventConsumerHooks;
  observer?: EventConsumerObserver;
}

export interface EventConsumerStats {
  handled: number;
  duplicates: number;
  /** Events of types the handler does not act on (see EventConsumerOptions.eventTypes). */
  ignored: number;
  deadLettered: number;
  failedAttempts: number;
  /** Committed transactions that recorded events in the inbox (one holds up to maxEventsPerTransaction). */
  transactions: number;
  /** Transactions of several events that failed and were redone one event per transaction. */
  fallbacks: number;
}

/** Stops the batch without resolving the current offset; the consumer then shuts itself down. */
class ConsumerHalted extends Error {}

/**
 * Consumes event topics with exactly-once effects: messages are validated, then recorded in the inbox and
 * handled in one database transaction (a re-delivered event finds its inbox row and has no second effect), and
 * only then are their offsets resolved. Consecutive valid messages of a partition share one transaction (one
 * inbox statement for all of them), which is what lets a consumer keep up with a busy topic; when such a
 * transaction fails, its messages are handled again one per transaction, so the failing one is retried with
 * backoff and then parked on the topic's dead-letter topic with the reason, and the others still apply once.
 * Nothing is dropped silently, every failure is logged, and a partition is handled strictly in offset order.
 */
export class EventConsumer {
  private readonly attempts: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly maxPerTransaction: number;
  private readonly lingerMs: number;
  private readonly inbox: InboxStore;
  private readonly pruner: InboxPruner;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly transactions: InboxTransactions;
  private readonly acts?: (type: string, headers: Readonly<Record<string, string>>) => boolean;
  private readonly logger: MessagingLogger;
  private readonly stopSignal = new AbortController();
  private consumer?: Consumer;
  private starting = false;
  private pruning?: Promise<void>;
  private stopping?: Promise<void>;
  private fatalError?: Error;
  private readonly counters: EventConsumerStats = {
    handled: 0,
    duplicates: 0,
    ignored: 0,
    deadLettered: 0,
    failedAttempts: 0,
    transactions: 0,
    fallbacks: 0,
  };

  constructor(private readonly options: EventConsumerOptions) {
    this.attempts = Math.max(1, options.retry?.attempts ?? 5);
    this.retryInitialMs = options.retry?.initialMs ?? 100;
    this.retryMaxMs = options.retry?.maxMs ?? 5000;
    this.maxPerTransaction = Math.max(1, options.maxEventsPerTransaction ?? 200);
    this.lingerMs = Math.max(0, options.lingerMs ?? 0);
    const schema = options.schema ?? (options.dataSource.options as { schema?: string }).schema ?? 'public';
    this.inbox = new InboxStore(qualified(assertSchemaName(schema), 'inbox'), options.consumerName);
    this.logger = options.logger ?? jsonLogger('warn', 'event-consumer');
    this.pruner = new InboxPruner(
      this.inbox,
      options.dataSource,
      { intervalMs: options.prune?.intervalMs ?? 5 * 60_000, retentionDays: options.prune?.retentionDays ?? 14, consumerName: options.consumerName },
      this.logger,
    );
    this.deadLetters = new DeadLetterPublisher(options.producer, options.consumerName);
    const types = options.eventTypes === undefined ? undefined : new Set(options.eventTypes);
    const skips = options.skips;
    if (types || skips) this.acts = (type, headers) => (types === undefined || types.has(type)) && !skips?.(headers);
    this.transactions = new InboxTransactions(
      options.dataSource,
      this.inbox,
      options.handler,
      options.beforeCommit,
      types || skips ? (item) => !item.skipped && (types === undefined || types.has(item.envelope.type)) : undefined,
      this.logger,
      options.claimedWrites,
    );
  }

  /** Joins the group and starts consuming (returns once the consumer is running). */
  async start(): Promise<void> {
    if (this.consumer || this.stopping || this.starting) throw new Error('event consumer already started');
    this.starting = true;
    const sessionTimeout = await sessionTimeoutFor(this.options.kafka, this.options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS, this.logger);
    if (this.stopping) return;
    const consumer = this.options.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout,
      heartbeatInterval: Math.floor(sessionTimeout / 6),
      // A fetch is answered as soon as one byte is there (minBytes 1), so this only bounds an idle wait.
      maxWaitTimeInMs: this.options.maxWaitTimeMs ?? 1000,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger.error(
        { groupId: this.options.groupId, err: payload.error, restart: payload.restart },
        `kafka consumer crashed: ${payload.error.message}`,
      );
      // kafkajs does not come back from a crash it deems final: the consumer would sit idle for good while the
      // process looks healthy. Stopping the way a halt does hands the partitions to a new instance.
      if (!payload.restart && !this.stopSignal.signal.aborted) this.giveUp(payload.error, { groupId: this.options.groupId });
    });
    const observer = this.options.observer;
    if (observer?.rebalanced) consumer.on(consumer.events.GROUP_JOIN, () => observer.rebalanced!());
    await consumer.connect();
    await consumer.subscribe({ topics: this.options.topics, fromBeginning: this.options.fromBeginning ?? true });
    await consumer.run({
      // Offsets are resolved one message at a time and committed once a second or every 100 messages (also on an
      // idle fetch, at a rebalance and at stop), not after every fetched batch (a patch of kafkajs: see
      // decisions.md): at ordinary rates each batch was one event, so an offset commit per event in every
      // consumer. An event handled but not yet committed when its instance dies comes again to the next owner,
      // and its inbox row makes it a duplicate.
      autoCommit: true,
      autoCommitInterval: this.options.offsetCommitIntervalMs ?? 1000,
      autoCommitThreshold: 100,
      autoCommitEveryBatch: false,
      eachBatchAutoResolve: false,
      // The partitions of one fetch are handled side by side (the next fetch waits for all of them); one at a
      // time, a 3-partition topic at 1,000 events/s fell behind on a 2-core machine.
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.pruning = this.pruner.run(this.stopSignal.signal);
  }

  /** Stops fetching, lets the transaction in flight finish, commits resolved offsets and leaves the group. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopSignal.abort();
      const consumer = this.consumer;
      if (!consumer) return;
      // disconnect() stops the runner, which waits for the batch in flight and commits what it resolved.
      await consumer.disconnect();
      await this.pruning;
    })();
    return this.stopping;
  }

  stats(): EventConsumerStats {
    return { ...this.counters };
  }

  /** Set when the consumer stopped itself (dead-letter publish failed, kafkajs crashed for good, or a hook simulated a crash). */
  get failure(): Error | undefined {
    return this.fatalError;
  }

  /** Deletes this consumer's inbox rows handled more than `retentionDays` ago; returns how many went. */
  pruneInbox(retentionDays?: number): Promise<number> {
    return this.pruner.prune(retentionDays);
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload) {
    const { topic, partition, messages } = batch;
    const started = performance.now();
    const going = () => isRunning() && !isStale() && !this.stopSignal.signal.aborted;
    const decoded = new Map<number, DecodedMessage>();
    const decodedAt = (i: number): DecodedMessage => {
      let item = decoded.get(i);
      if (!item) decoded.set(i, (item = decodeMessage(topic, partition, messages[i]!, this.acts)));
      return item;
    };
    let next = 0;
    let parked = this.counters.deadLettered;
    const lag = this.options.observer?.lag;
    if (lag && !batch.isEmpty()) lag(topic, partition, Number(batch.offsetLagLow()) + 1);
    try {
      while (next < messages.length && going()) {
        const first = decodedAt(next);
        if (!first.ok) {
          await this.deadLetterInvalid(first);
          resolveOffset(first.where.offset);
          next += 1;
        } else {
          // A run of valid messages; an invalid one ends it, so everything still happens in offset order.
          const run: ValidMessage[] = [first];
          while (run.length < this.maxPerTransaction && next + run.length < messages.length) {
            const item = decodedAt(next + run.length);
            if (!item.ok) break;
            run.push(item);
          }
          const done = await this.handleRun(run, resolveOffset, heartbeat);
          next += done;
          if (done < run.length) break; // stopping during a retry: the rest stays for the next owner
        }
        if (this.counters.deadLettered !== parked && next > 0) {
          // A parked event's offset is committed at once, not with the next interval's commit: otherwise an
          // instance dying within that interval hands it on, and it is retried and parked a second time (a
          // parked event has no inbox row to make it a duplicate).
          parked = this.counters.deadLettered;
          const offset = (BigInt(messages[next - 1]!.offset) + 1n).toString();
          await commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] });
        } else if (next < messages.length) {
          // Within a long batch too, every second or 100 offsets.
          await commitOffsetsIfNecessary();
        }
        await heartbeat();
      }
      if (lag && next === messages.length && !batch.isEmpty()) lag(topic, partition, Math.max(0, Number(batch.offsetLag())));
      // kafkajs fetches again once every batch of the fetch returned: waiting here lets events gather (see lingerMs).
      const linger = this.lingerMs - (performance.now() - started);
      if (linger > 1 && going()) await sleep(linger, this.stopSignal.signal);
    } catch (error) {
      if (error instanceof ConsumerHalted) return;
      throw error;
    }
  }

  /**
   * Handles a run of valid messages in one transaction, or one by one when that fails; resolves the offset of
   * each one done and returns how many that is (fewer than the run only when stopping).
   */
  private async handleRun(run: ValidMessage[], resolveOffset: (offset: string) => void, heartbeat: () => Promise<void>): Promise<number> {
    const result = await this.transactions.run(run);
    if (result.committed) {
      if (result.outcomes.some((outcome) => outcome !== 'ignored')) this.counters.transactions += 1;
      // Counted at commit: every effect of the run is in, whatever happens to the offsets below.
      for (const outcome of result.outcomes) this.count(outcome);
      for (const [i, item] of run.entries()) {
        const outcome = result.outcomes[i]!;
        if (outcome === 'duplicate') this.logger.debug(this.logContext(item), 'duplicate event skipped (already in inbox)');
        await this.afterHandle(item, outcome);
        resolveOffset(item.where.offset);
      }
      return run.length;
    }

    // Nothing of the batch committed. When a handler failed (or the run was a single event), that try counts
    // as its first attempt; the ones before it are redone alone and the ones after it go back to batching.
    if (run.length > 1) this.counters.fallbacks += 1;
    const { error } = result;
    const failedAt = result.failedAt ?? (run.length === 1 ? 0 : undefined);
    if (failedAt === undefined) {
      this.logger.warn(
        { ...run[0]!.where, lastOffset: run[run.length - 1]!.where.offset, events: run.length, err: error },
        `batch transaction failed, handling its events one per transaction: ${errorMessage(error)}`,
      );
    }
    const alone = failedAt === undefined ? run.length : failedAt + 1;
    for (let i = 0; i < alone; i += 1) {
      const item = run[i]!;
      const done = await this.handleAlone(item, heartbeat, i === failedAt ? { error } : undefined);
      if (!done) return i;
      resolveOffset(item.where.offset);
    }
    return alone;
  }

  /**
   * One message in its own transaction, retried with backoff and then dead-lettered. `firstFailure` is the
   * error of a first attempt already made in a batch. Returns false when the message was left unprocessed
   * (stopping); its offset must not be resolved.
   */
  private async handleAlone(item: ValidMessage, heartbeat: () => Promise<void>, firstFailure?: { error: unknown }): Promise<boolean> {
    const log = this.logContext(item);
    for (let attempt = 1; ; attempt += 1) {
      let outcome: HandleOutcome;
      try {
        if (attempt === 1 && firstFailure) throw firstFailure.error;
        outcome = await this.transactions.one(item, attempt);
      } catch (error) {
        this.counters.failedAttempts += 1;
        // An unreachable database, a lock held too long or an overloaded one is an outage, not a bad event: keep
        // retrying (at the longest delay) instead of parking events that would succeed a minute later.
        const refused = error instanceof EventRefused;
        const outage = !refused && attempt >= this.attempts && (isDatabaseTimeout(error) || !(await this.databaseReachable()));
        if (refused || (attempt >= this.attempts && !outage)) {
          this.logger.error({ ...log, attempt, err: error }, refused ? 'handler refused the event, dead-lettering' : `handler failed ${attempt} times, dead-lettering`);
          await this.deadLetter(item, errorMessage(error), attempt);
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

      if (outcome !== 'ignored') this.counters.transactions += 1;
      this.count(outcome);
      if (outcome === 'duplicate') this.logger.debug(log, 'duplicate event skipped (already in inbox)');
      await this.afterHandle(item, outcome);
      return true;
    }
  }

  private count(outcome: HandleOutcome): void {
    if (outcome === 'handled') this.counters.handled += 1;
    else if (outcome === 'duplicate') this.counters.duplicates += 1;
    else this.counters.ignored += 1;
  }

  private async afterHandle(item: ValidMessage, outcome: HandleOutcome): Promise<void> {
    try {
      await this.options.hooks?.afterHandle?.(item.envelope, outcome);
    } catch (error) {
      this.halt(error, this.logContext(item));
    }
  }

  private logContext(item: ValidMessage): Record<string, unknown> {
    return { ...item.where, eventId: item.envelope.id, eventType: item.envelope.type };
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

  private async deadLetterInvalid(item: Extract<DecodedMessage, { ok: false }>): Promise<void> {
    this.logger.error({ ...item.where, eventId: item.headers['event-id'], err: item.error }, `dead-lettering: ${item.reason}`);
    await this.deadLetter(item, item.reason, 0);
  }

  private async deadLetter(item: DecodedMessage, reason: string, attempts: number): Promise<void> {
    try {
      await this.deadLetters.publish(item, reason, attempts);
      this.counters.deadLettered += 1;
      this.options.observer?.deadLettered?.(item.where.topic, reason);
    } catch (error) {
      // Skipping would lose the event: stop here and let the next owner of the partition try again.
      this.halt(error, { ...item.where, reason });
    }
  }

  /** Leaves the current offset unresolved and shuts the consumer down, the way a crashed process would. */
  private halt(error: unknown, context: Record<string, unknown>): never {
    const fatal = this.giveUp(error, context);
    throw new ConsumerHalted(fatal.message);
  }

  /** Records the failure, stops and tells the owner (onFatal), without waiting: see halt. */
  private giveUp(error: unknown, context: Record<string, unknown>): Error {
    const fatal = error instanceof Error ? error : new Error(String(error));
    this.fatalError ??= fatal;
    this.logger.error({ ...context, err: fatal }, `event consumer stopping: ${fatal.message}`);
    // Not awaited: disconnect waits for this very batch to return.
    void this.stop().then(
      () => this.options.onFatal?.(fatal),
      (stopError: unknown) => this.logger.error({ err: stopError }, 'event consumer failed to stop cleanly'),
    );
    return fatal;
  }
}
