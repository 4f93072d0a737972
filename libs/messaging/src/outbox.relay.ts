import type { Message, Producer } from 'kafkajs';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { ACKS_ALL } from './kafka.factory';
import { errorMessage, jsonLogger, type MessagingLogger } from './messaging.logger';
import { registerLocalRelay } from './outbox.signal';
import { pgClientConfig } from '@payments/database';
import { assertSchemaName, qualified } from '@payments/database';
import { outboxChannel } from './outbox-channel';
import { backoffDelay, sleep, Wakeup } from './wakeup';

export interface OutboxRelayHooks {
  /** Runs after a batch reached Kafka and before its rows are deleted (tests throw here to die at that point). */
  afterPublish?(ids: readonly string[]): void | Promise<void>;
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  /** Connected idempotent producer (createProducer); owned by the caller. */
  producer: Producer;
  schema: string;
  batchSize?: number;
  pollIntervalMs?: number;
  /**
   * How long the relay lets more rows arrive after it was woken before it reads them (a producer's linger): at a
   * steady rate each cycle (read, publish, delete) then carries several rows instead of one or two.
   */
  lingerMs?: number;
  /** Backoff after a failed cycle (publish or database error). */
  retry?: { initialMs?: number; maxMs?: number };
  /** Deleting rows earlier versions marked sent (and kept): how often and how old. */
  prune?: { intervalMs?: number; retentionDays?: number };
  logger?: MessagingLogger;
  hooks?: OutboxRelayHooks;
}

export interface OutboxRelayStats {
  /** Holds the schema's lock and publishes; false while standing by. */
  active: boolean;
  published: number;
  batches: number;
  failures: number;
}

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  payload: string;
  /** JSON of the message's headers (string values). */
  headers: string;
}

/** First key of the two-key advisory lock: keeps relay locks apart from other advisory locks ('outb'). */
const LOCK_NAMESPACE = 0x6f757462;

class ConnectionLost extends Error {}

/**
 * Publishes a schema's outbox to Kafka in id order and deletes the rows it sent.
 *
 * Only one instance per schema publishes at a time: it holds `pg_try_advisory_lock` on its own connection and
 * does every read and mark on that same connection. Two publishers could each read the same unsent rows and
 * send them interleaved, or one could send a later batch while another still retries an earlier one, and an
 * aggregate's events would reach the partition out of order. With the lock, a second instance stands by and
 * retries every poll interval; if the active one dies its session ends, Postgres frees the lock, and the next
 * instance continues from the oldest unsent row. The worst case is a re-send of the batch that was in flight,
 * which consumers drop through their inbox.
 *
 * Rows are read in id order from the start of the table, not from a high-water mark, so a transaction that
 * commits after a higher id was already published is still picked up. Rows with `sent_at` set were marked sent
 * by earlier versions of the relay, which kept them a while: they are never sent again, and pruned.
 */
export class OutboxRelay {
  private readonly schema: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly lingerMs: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly pruneIntervalMs: number;
  private readonly retentionDays: number;
  private readonly logger: MessagingLogger;
  private readonly work = new Wakeup();
  private readonly stopSignal = new AbortController();
  private client?: Client;
  private connectionLost = false;
  private active = false;
  private loop?: Promise<void>;
  private stopping?: Promise<void>;
  private lastPruneAt = Date.now();
  private unregister?: () => void;
  private readonly counters = { published: 0, batches: 0, failures: 0 };

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertSchemaName(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.lingerMs = options.lingerMs ?? 3;
    this.retryInitialMs = options.retry?.initialMs ?? 200;
    this.retryMaxMs = options.retry?.maxMs ?? 10_000;
    this.pruneIntervalMs = options.prune?.intervalMs ?? 5 * 60_000;
    this.retentionDays = options.prune?.retentionDays ?? 7;
    this.logger = options.logger ?? jsonLogger('warn', 'outbox-relay');
  }

  start(): void {
    if (this.stopping) throw new Error('outbox relay was stopped; create a new one');
    if (this.loop) return;
    this.unregister = registerLocalRelay(this.schema, { active: () => this.active, wake: () => this.work.notify() }, this.options.dataSource);
    this.loop = this.run();
  }

  /** Finishes the batch in flight, then releases the lock and the connection. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.unregister?.();
      this.stopSignal.abort();
      this.work.notify();
      await this.loop;
      await this.disconnect();
    })();
    return this.stopping;
  }

  stats(): OutboxRelayStats {
    return { active: this.active, ...this.counters };
  }

  /**
   * Resolves once every row that existed when called has been sent, by this instance or whichever one holds
   * the lock (graceful shutdown: flush, then stop).
   */
  async flush(timeoutMs = 30_000): Promise<void> {
    const outbox = qualified(this.schema, 'outbox');
    const [{ max }] = (await this.options.dataSource.query(`SELECT max(id)::text AS max FROM ${outbox}`)) as Array<{
      max: string | null;
    }>;
    if (max === null) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.work.notify();
      const [{ unsent }] = (await this.options.dataSource.query(
        `SELECT count(*)::int AS unsent FROM ${outbox} WHERE sent_at IS NULL AND id <= $1`,
        [max],
      )) as Array<{ unsent: number }>;
      if (unsent === 0) return;
      if (Date.now() >= deadline) throw new Error(`outbox flush timed out with ${unsent} rows of ${this.schema} unsent`);
      await sleep(Math.min(this.pollIntervalMs, 50));
    }
  }

  /** Deletes rows marked sent (by earlier versions) more than `retentionDays` ago, in chunks; returns how many went. */
  async prune(retentionDays = this.retentionDays): Promise<number> {
    const outbox = qualified(this.schema, 'outbox');
    let total = 0;
    for (;;) {
      // Ids grow with time, so the oldest sent rows are found at the start of the primary key.
      const [{ deleted }] = (await this.options.dataSource.query(
        `WITH gone AS (
           DELETE FROM ${outbox} WHERE id IN (
             SELECT id FROM ${outbox}
             WHERE sent_at IS NOT NULL AND sent_at < now() - $1::float8 * interval '1 day'
             ORDER BY id LIMIT 5000)
           RETURNING 1)
         SELECT count(*)::int AS deleted FROM gone`,
        [retentionDays],
      )) as Array<{ deleted: number }>;
      total += deleted;
      if (deleted < 5000) return total;
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopSignal.signal.aborted) {
      try {
        if (!this.active && !(await this.tryBecomeActive())) {
          await sleep(this.pollIntervalMs, this.stopSignal.signal);
          continue;
        }
        const sent = await this.relayBatch();
        failures = 0;
        await this.pruneIfDue();
        // A full batch means more may be waiting: go again at once.
        if (sent < this.batchSize) {
          await this.work.wait(this.pollIntervalMs);
          if (this.lingerMs > 0) await sleep(this.lingerMs, this.stopSignal.signal);
        }
      } catch (error) {
        failures += 1;
        this.counters.failures += 1;
        const delayMs = backoffDelay(failures, this.retryInitialMs, this.retryMaxMs);
        this.logger.error(
          { err: error, schema: this.schema, failures, retryInMs: delayMs },
          `outbox relay cycle failed; retrying (rows not yet deleted are sent again): ${errorMessage(error)}`,
        );
        if (error instanceof ConnectionLost) await this.disconnect();
        await sleep(delayMs, this.stopSignal.signal);
      }
    }
  }

  /** Takes the schema's lock on the dedicated connection (opened on first use, kept while standing by). */
  private async tryBecomeActive(): Promise<boolean> {
    const client = await this.connection();
    const { rows } = await this.db(() =>
      client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
        LOCK_NAMESPACE,
        this.schema,
      ]),
    );
    if (!rows[0]!.locked) return false;
    await this.db(() => client.query(`LISTEN "${outboxChannel(this.schema)}"`));
    this.active = true;
    this.logger.info({ schema: this.schema }, 'outbox relay active');
    return true;
  }

  private async relayBatch(): Promise<number> {
    const client = this.client!;
    if (this.connectionLost) throw new ConnectionLost('relay connection lost');
    const outbox = qualified(this.schema, 'outbox');
    const { rows } = await this.db(() =>
      client.query<OutboxRow>(
        // id is bigint (pg hands it over as a string); ordering is on the column, never on a text form of it.
        `SELECT id, topic, key, payload, headers
         FROM ${outbox} WHERE sent_at IS NULL ORDER BY id LIMIT $1`,
        [this.batchSize],
      ),
    );
    if (rows.length === 0) return 0;

    const byTopic = new Map<string, Message[]>();
    for (const row of rows) {
      const messages = byTopic.get(row.topic) ?? [];
      messages.push({ key: row.key, value: row.payload, headers: JSON.parse(row.headers) as Record<string, string> });
      byTopic.set(row.topic, messages);
    }
    const ids = rows.map((row) => row.id);
    await this.options.producer.sendBatch({
      acks: ACKS_ALL,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
    await this.options.hooks?.afterPublish?.(ids);
    // A crash before this line only means the batch is sent again by whoever holds the lock next. A sent row is
    // deleted, not marked: a mark (sent_at) wrote the whole row (its payload) to the table and the WAL once more,
    // and a prune deleted it later; the event itself is kept by Kafka.
    await this.db(() => client.query(`DELETE FROM ${outbox} WHERE id = ANY($1::bigint[])`, [ids]));
    this.counters.published += rows.length;
    this.counters.batches += 1;
    return rows.length;
  }

  private async pruneIfDue(): Promise<void> {
    if (Date.now() - this.lastPruneAt < this.pruneIntervalMs) return;
    this.lastPruneAt = Date.now();
    const deleted = await this.prune();
    if (deleted > 0) this.logger.info({ schema: this.schema, deleted }, 'pruned sent outbox rows');
  }

  private async connection(): Promise<Client> {
    if (this.client && !this.connectionLost) return this.client;
    if (this.client) await this.disconnect();
    const client = new Client(pgClientConfig(this.options.dataSource, 'outbox-relay'));
    client.on('error', (error) => {
      if (this.client !== client) return; // an old session that is already being closed
      this.connectionLost = true;
      this.logger.error({ err: error, schema: this.schema }, 'outbox relay connection failed; lock lost');
      this.work.notify();
    });
    client.on('notification', () => this.work.notify());
    this.client = client;
    this.connectionLost = false;
    await this.db(() => client.connect());
    // Deleting sent rows need not wait for the disk: a delete lost in a crash of Postgres only means a re-send, which
    // consumers drop through their inbox. Without this every relay cycle's DELETE waited on its own WAL flush, a
    // flush per cycle competing with the commits that acknowledge requests; now the next of those carries it.
    await this.db(() => client.query('SET synchronous_commit TO off'));
    return client;
  }

  /** Database errors end the session (and with it the lock): the next cycle reconnects and competes again. */
  private async db<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw new ConnectionLost(errorMessage(error), { cause: error });
    }
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (this.active) this.logger.info({ schema: this.schema }, 'outbox relay standing down');
    this.active = false;
    if (!client) return;
    // Ending the session releases the advisory lock and the LISTEN.
    await client.end().catch((error: unknown) => {
      this.logger.warn({ err: error, schema: this.schema }, 'closing the outbox relay connection failed');
    });
  }
}
