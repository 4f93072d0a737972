import type { Message, Producer } from 'kafkajs';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { tracingEnabled } from '@payments/tracing';
import { ACKS_ALL } from './kafka.factory';
import { endSpans, startPublishSpans } from './message-tracing';
import { errorMessage, jsonLogger, type MessagingLogger } from './messaging.logger';
import { registerLocalRelay } from './outbox.signal';
import { pgClientConfig } from '@payments/database';
import { assertSchemaName, qualified } from '@payments/database';
import { outboxChannel } from './outbox-channel';
import { backoffDelay, sleep, Wakeup } from './wakeup';

export interface OutboxRelayHooks {
  /** Runs after a batch reached Kafka and before its rows are deleted (tests throw here to die at that point). */
  afterPublish?(ids: readonly string[]): void | Promise<void>;
  /** A row was moved to outbox_parked (a metric counts them). */
  onParked?(row: { id: string; eventId: string | undefined; topic: string; reason: string }): void;
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  /** Connected idempotent producer (createProducer); owned by the caller. */
  producer: Producer;
  schema: string;
  batchSize?: number;
  /**
   * Most bytes (keys, payloads and headers, plus an allowance per record) one cycle sends: under the broker's
   * `message.max.bytes` (1 MiB by default), which it checks per partition's record batch and refuses past, for
   * good. A row larger than this alone is parked (outbox_parked), never sent.
   */
  maxBatchBytes?: number;
  /**
   * How often the active relay looks for rows nobody woke it for (a safety net: writers wake it in process or by
   * NOTIFY on the connection it LISTENs on). Default 2000 ms.
   */
  pollIntervalMs?: number;
  /** How often a standing-by relay tries to take the schema's lock (how soon it takes over from a dead one). Default 1000 ms. */
  standbyRetryMs?: number;
  /**
   * How long the relay lets more rows arrive after it was woken before it reads them (a producer's linger): at a
   * steady rate each cycle (read, publish, delete) then carries several rows instead of one or two.
   */
  lingerMs?: number;
  /**
   * After a cycle that sent rows, the next one starts no sooner than this after it began: rows that come meanwhile
   * go together (at 100 writes a second and 50 ms, one read, one produce and one delete for every five writes
   * instead of every one, and as many fewer fetches woken in every consumer). The first row after a quiet spell is sent at once, and
   * none waits longer than this for the cycle before it. Default 50 ms.
   */
  spacingMs?: number;
  /**
   * How long rows a cycle sent wait for the next cycle, whose read deletes them in the same statement, before they
   * are deleted on their own (sent rows are never sent again but by a crash or a lost lock). Default 100 ms.
   */
  sentDeleteWaitMs?: number;
  /**
   * After this many rows deleted, the relay vacuums its outbox (default 200; 0 leaves it to autovacuum). A deleted
   * row stays in the table and its index until a vacuum, and every read walks past it: autovacuum comes about once a
   * minute, by when a read at 60 payments a second passed about 3,000 dead rows (835 buffers, 8 ms).
   */
  vacuumAfterDeletedRows?: number;
  /** Backoff after a failed cycle (publish or database error). */
  retry?: { initialMs?: number; maxMs?: number };
  /** Deleting rows earlier versions marked sent (and kept): how often and how old. */
  prune?: { intervalMs?: number; retentionDays?: number };
  /**
   * The topics a row of `topic` whose `event-type` header is `eventType` is also published on, in the same produce
   * (a copy: same key, value and headers). Default none. See `topicCopies` of @payments/events.
   */
  copies?: (topic: string, eventType: string | undefined) => readonly string[];
  logger?: MessagingLogger;
  hooks?: OutboxRelayHooks;
}

export interface OutboxRelayStats {
  /** Holds the schema's lock and publishes; false while standing by. */
  active: boolean;
  published: number;
  batches: number;
  failures: number;
  /** Rows moved to outbox_parked because no batch could carry them. */
  parked: number;
}

/** Room for a record's framing in a batch (lengths, offsets, timestamp, header names as varints). */
const RECORD_OVERHEAD_BYTES = 64;
/** Under Kafka's default `message.max.bytes` (1,048,588) with room for a batch's own header. */
export const DEFAULT_OUTBOX_MAX_BATCH_BYTES = 1_000_000;
/** How long batches stay at the smaller size the broker accepted before a full-size one is tried again. */
const BUDGET_RESTORE_MS = 60_000;
/** The broker's refusals of a batch or record for its size (not retriable: the same batch is refused again). */
const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  payload: string;
  /** JSON of the message's headers (string values). */
  headers: string;
  /** Stored bytes of key, payload and headers: what the record carries, give or take its framing. */
  bytes: number;
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
  private readonly maxBatchBytes: number;
  /** The bytes a cycle may send now: maxBatchBytes, or less for a while after the broker refused a batch as too large. */
  private byteBudget: number;
  private budgetLoweredAt = 0;
  private readonly pollIntervalMs: number;
  private readonly standbyRetryMs: number;
  private readonly lingerMs: number;
  private readonly spacingMs: number;
  private readonly sentDeleteWaitMs: number;
  private readonly vacuumAfterDeletedRows: number;
  private deletedSinceVacuum = 0;
  private vacuuming?: Promise<void>;
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
  private readonly counters = { published: 0, batches: 0, failures: 0, parked: 0 };
  /** Ids of rows sent but not deleted yet: the next read deletes them in its own statement (see deleteSent). */
  private sent: string[] = [];

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertSchemaName(options.schema);
    this.batchSize = options.batchSize ?? 500;
    this.maxBatchBytes = options.maxBatchBytes ?? DEFAULT_OUTBOX_MAX_BATCH_BYTES;
    this.byteBudget = this.maxBatchBytes;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.standbyRetryMs = options.standbyRetryMs ?? Math.min(this.pollIntervalMs, 1000);
    this.lingerMs = options.lingerMs ?? 0;
    this.spacingMs = options.spacingMs ?? 50;
    this.sentDeleteWaitMs = options.sentDeleteWaitMs ?? 100;
    this.vacuumAfterDeletedRows = options.vacuumAfterDeletedRows ?? 200;
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
      await this.deleteSent().catch(() => undefined);
      await this.vacuuming;
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
          await sleep(this.standbyRetryMs, this.stopSignal.signal);
          continue;
        }
        const started = performance.now();
        const sentBefore = this.counters.batches;
        const more = await this.relayBatch();
        failures = 0;
        await this.pruneIfDue();
        // A full batch (by rows or bytes) means more may be waiting: go again at once.
        if (!more) {
          const spacing = this.spacingMs - (performance.now() - started);
          if (this.counters.batches > sentBefore && spacing > 1) await sleep(spacing, this.stopSignal.signal);
          // Rows just sent are deleted by the next cycle's read when one comes soon (at ordinary rates, nearly
          // always), so a cycle is one statement instead of two; otherwise on their own, shortly after.
          const soon = this.sent.length > 0 && (await this.work.wait(this.sentDeleteWaitMs));
          if (!soon) {
            await this.deleteSent();
            await this.work.wait(this.pollIntervalMs);
          }
          if (this.lingerMs > 0) await sleep(this.lingerMs, this.stopSignal.signal);
        }
      } catch (error) {
        // Rows sent and not deleted are sent again by whoever holds the lock next (consumers drop the repeat).
        this.sent = [];
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
      // Named: a relay standing by asks every poll interval, for as long as it runs.
      client.query<{ locked: boolean }>({ name: 'outbox_relay_lock', text: 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', values: [LOCK_NAMESPACE, this.schema] }),
    );
    if (!rows[0]!.locked) return false;
    await this.db(() => client.query(`LISTEN "${outboxChannel(this.schema)}"`));
    this.active = true;
    this.logger.info({ schema: this.schema }, 'outbox relay active');
    return true;
  }

  /** Sends the oldest unsent rows that fit one batch; answers whether more may be waiting. */
  private async relayBatch(): Promise<boolean> {
    const client = this.client!;
    if (this.connectionLost) throw new ConnectionLost('relay connection lost');
    const outbox = qualified(this.schema, 'outbox');
    const deleting = this.sent;
    const { rows: read } = await this.db(() =>
      client.query<OutboxRow>({
        // Named, as the delete below: the relay's connection parses each once, not at every cycle (a cycle or two
        // per request at ordinary rates). The rows the last cycle sent are deleted in the same statement; its read
        // still sees them (one snapshot), so it passes over them.
        name: 'outbox_relay_read',
        // id is bigint (pg hands it over as a string); ordering is on the column, never on a text form of it.
        // octet_length of a text reads its stored length (no scan, no detoasting).
        text: `WITH gone AS (DELETE FROM ${outbox} WHERE id = ANY($2::bigint[]))
         SELECT id, topic, key, payload, headers, octet_length(key) + octet_length(payload) + octet_length(headers) AS bytes
         FROM ${outbox} WHERE sent_at IS NULL AND id <> ALL($2::bigint[]) ORDER BY id LIMIT $1`,
        values: [this.batchSize, deleting],
      }),
    );
    this.sent = [];
    this.deleted(deleting.length);
    if (read.length === 0) return false;
    const first = read[0]!;
    if (first.bytes + RECORD_OVERHEAD_BYTES > this.maxBatchBytes) {
      await this.park(first, `${first.bytes} bytes, larger than a batch may be (maxBatchBytes ${this.maxBatchBytes} bytes)`);
      return true;
    }
    // The oldest rows, in id order, up to the byte budget (always at least one): the rest wait for the next cycle.
    let bytes = 0;
    let take = 0;
    while (take < read.length) {
      const next = bytes + read[take]!.bytes + RECORD_OVERHEAD_BYTES;
      if (take > 0 && next > this.byteBudget) break;
      bytes = next;
      take += 1;
    }
    const rows = take === read.length ? read : read.slice(0, take);

    // Copies go in the same produce, in the rows' order, so each topic holds an aggregate's events in order. The byte
    // budget above is per partition's batch (what the broker limits), and a copy's topic gets a subset of the rows.
    const byTopic = new Map<string, Message[]>();
    const add = (topic: string, message: Message) => {
      const messages = byTopic.get(topic) ?? [];
      messages.push(message);
      byTopic.set(topic, messages);
    };
    for (const row of rows) {
      const headers = JSON.parse(row.headers) as Record<string, string>;
      add(row.topic, { key: row.key, value: row.payload, headers });
      // A copy's headers are its own: a publish span writes its traceparent into them.
      if (this.options.copies) for (const copy of this.options.copies(row.topic, headers['event-type'])) add(copy, { key: row.key, value: row.payload, headers: { ...headers } });
    }
    const ids = rows.map((row) => row.id);
    const spans = tracingEnabled() ? [...byTopic].flatMap(([topic, messages]) => startPublishSpans(topic, messages)) : undefined;
    try {
      await this.options.producer.sendBatch({
        acks: ACKS_ALL,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
      if (spans) endSpans(spans);
    } catch (error) {
      if (spans) endSpans(spans, error);
      const refusal = tooLargeRefusal(error);
      if (refusal === undefined) throw error;
      // The broker (or the topic) allows less than this relay assumed. Alone, the row can never be sent: park it.
      // Otherwise send smaller batches until the broker takes them: the same batch would be refused for ever.
      if (rows.length === 1) {
        await this.park(rows[0]!, `${rows[0]!.bytes} bytes, refused by the broker as too large: ${refusal}`);
        return true;
      }
      this.byteBudget = Math.max(1, Math.floor(bytes / 2));
      this.budgetLoweredAt = Date.now();
      this.logger.warn(
        { schema: this.schema, rows: rows.length, bytes, nextBudget: this.byteBudget },
        `the broker refused an outbox batch as too large (${refusal}); sending smaller batches`,
      );
      return true;
    }
    // Full-size batches are tried again a while after the last refusal (a topic's limit may have been raised).
    if (this.byteBudget < this.maxBatchBytes && Date.now() - this.budgetLoweredAt > BUDGET_RESTORE_MS) this.byteBudget = this.maxBatchBytes;
    await this.options.hooks?.afterPublish?.(ids);
    // A crash before the rows are deleted only means the batch is sent again by whoever holds the lock next. A sent
    // row is deleted, not marked: a mark (sent_at) wrote the whole row (its payload) to the table and the WAL once
    // more, and a prune deleted it later; the event itself is kept by Kafka.
    this.sent = ids;
    this.counters.published += rows.length;
    this.counters.batches += 1;
    return read.length === this.batchSize || rows.length < read.length;
  }

  /** Deletes the rows sent and not deleted yet, on their own. */
  private async deleteSent(): Promise<void> {
    const ids = this.sent;
    const client = this.client;
    if (ids.length === 0 || !client || !this.active) return;
    const outbox = qualified(this.schema, 'outbox');
    await this.db(() => client.query({ name: 'outbox_relay_delete', text: `DELETE FROM ${outbox} WHERE id = ANY($1::bigint[])`, values: [ids] }));
    this.sent = [];
    this.deleted(ids.length);
  }

  /**
   * Counts deleted rows and, every vacuumAfterDeletedRows of them, vacuums the outbox in the background on a pooled
   * connection (the relay's own goes on with its cycles). Vacuuming a few hundred dead rows costs about a millisecond;
   * reads past them cost that every few cycles. It never truncates the table: truncating takes a lock that writers
   * (every business transaction) would queue behind; the space freed is reused instead. SKIP_LOCKED: when another
   * vacuum holds the table, this one is skipped rather than waited for.
   */
  private deleted(rows: number): void {
    if (this.vacuumAfterDeletedRows <= 0) return;
    this.deletedSinceVacuum += rows;
    if (this.deletedSinceVacuum < this.vacuumAfterDeletedRows || this.vacuuming) return;
    this.deletedSinceVacuum = 0;
    this.vacuuming = this.options.dataSource
      .query(`VACUUM (TRUNCATE false, SKIP_LOCKED) ${qualified(this.schema, 'outbox')}`)
      .then(
        () => undefined,
        (error: unknown) => this.logger.warn({ err: error, schema: this.schema }, `vacuuming the outbox failed (autovacuum still will): ${errorMessage(error)}`),
      )
      .finally(() => (this.vacuuming = undefined));
  }

  /**
   * Moves a row no batch can carry to outbox_parked, whole and with the reason, and says so loudly: the rows behind
   * it go on (one event withheld, rather than every event of the service). An operator sends it again by moving it
   * back once the limit allows (docs/decisions.md, "Outbox relay").
   */
  private async park(row: OutboxRow, reason: string): Promise<void> {
    const outbox = qualified(this.schema, 'outbox');
    const parked = qualified(this.schema, 'outbox_parked');
    const { rows } = await this.db(() =>
      this.client!.query<{ event_id: string }>(
        `WITH moved AS (DELETE FROM ${outbox} WHERE id = $1 RETURNING id, event_id, topic, key, payload, headers, created_at)
         INSERT INTO ${parked} (id, event_id, topic, key, payload, headers, created_at, reason)
         SELECT id, event_id, topic, key, payload, headers, created_at, $2 FROM moved
         RETURNING event_id`,
        [row.id, reason],
      ),
    );
    this.counters.parked += 1;
    const eventId = rows[0]?.event_id;
    this.options.hooks?.onParked?.({ id: row.id, eventId, topic: row.topic, reason });
    this.logger.error(
      { schema: this.schema, outboxId: row.id, eventId, topic: row.topic, key: row.key, bytes: row.bytes, reason },
      `outbox row parked, not sent: ${reason}; it stays in ${parked} for an operator`,
    );
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
    // Its few named statements are planned once a session: Postgres judged the read's custom plan cheaper every
    // time and planned it at every cycle (0.2 ms each), where the generic plan takes the same indexes.
    await this.db(() => client.query('SET synchronous_commit TO off; SET plan_cache_mode TO force_generic_plan'));
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

/**
 * Seconds since the oldest row of the schema's outbox still waiting for the relay was written (0 when none waits):
 * how far behind Kafka the service's events are, whichever instance relays and whether or not it runs. One row
 * read through the unsent-rows index.
 */
export async function outboxOldestUnsentAgeSeconds(dataSource: DataSource, schema: string): Promise<number> {
  const outbox = qualified(assertSchemaName(schema), 'outbox');
  const rows = (await dataSource.query(
    `SELECT extract(epoch FROM now() - created_at)::float8 AS age FROM ${outbox} WHERE sent_at IS NULL ORDER BY id LIMIT 1`,
  )) as Array<{ age: number }>;
  return Math.max(0, rows[0]?.age ?? 0);
}

/** The broker's reason when it refused a send for its size (kafkajs' protocol error, possibly wrapped), else undefined. */
function tooLargeRefusal(error: unknown): string | undefined {
  for (let e = error as { type?: unknown; message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.type === 'string' && TOO_LARGE.has(e.type)) return `${e.type}: ${String(e.message)}`;
  }
  return undefined;
}
