import { combineStatements } from '@payments/database';
import { EventValidationError } from '@payments/events';
import { createProducer, ensureTopics, envelopeHeaders, MESSAGING_MIGRATIONS, MessagingTables1763769600000, OutboxPlainText1764700000000, OutboxRelay, OutboxWriter, outboxOldestUnsentAgeSeconds } from '../src';
import { collectMessages, recordStatements, testKafka, uniqueTopic, waitFor } from '@payments/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { Cleanup, connectProducer, createDatabase, CreateThings1763769700000, recordingLogger, THING_HAPPENED, thingHappened } from './support/fixtures';

describe('outbox writer, relay connection loss, pruning and tables', () => {
  const cleanup = new Cleanup();
  const topic = uniqueTopic('outbox');
  let db: DataSource;
  let url: string;
  let database: Awaited<ReturnType<typeof createDatabase>>;

  beforeAll(async () => {
    database = await createDatabase('outbox', cleanup);
    url = database.url;
    db = await database.dataSource('svc', [...MESSAGING_MIGRATIONS, CreateThings1763769700000]);
  });

  afterAll(() => cleanup.run());

  const count = async (sql: string) => ((await db.query(sql)) as [{ n: number }])[0].n;

  it('writes rows with key, headers and payload, and notifies the schema channel on commit', async () => {
    const listener = new Client({ connectionString: url });
    await listener.connect();
    cleanup.add(() => listener.end());
    const notified: string[] = [];
    listener.on('notification', (n) => notified.push(n.channel));
    await listener.query('LISTEN svc_outbox');

    const envelope = { ...thingHappened('thing_1', 1), causation_id: 'evt_000000000000000000000001' };
    await db.transaction((manager) => new OutboxWriter().append(manager, topic, [envelope]));
    const [row] = (await db.query('SELECT * FROM svc.outbox WHERE event_id = $1', [envelope.id])) as Array<Record<string, unknown>>;
    // Stored as the text the relay sends.
    expect(row).toMatchObject({ topic, key: 'thing_1', payload: JSON.stringify(envelope), sent_at: null });
    expect(JSON.parse(row!.headers as string)).toEqual({
      'event-id': envelope.id,
      'event-type': envelope.type,
      'schema-version': '1',
      'correlation-id': envelope.correlation_id,
      'causation-id': envelope.causation_id,
      'content-type': 'application/json',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(notified).toContain('svc_outbox');
  });

  it('wakes a relay running elsewhere by a NOTIFY within the combined statement itself, and sends no second one', async () => {
    const listener = new Client({ connectionString: url });
    await listener.connect();
    cleanup.add(() => listener.end());
    let notifications = 0;
    listener.on('notification', () => (notifications += 1));
    await listener.query('LISTEN svc_outbox');
    // No relay of this process is active for the schema: the NOTIFY goes into the write.
    const writer = new OutboxWriter({ schema: 'svc' });
    const notify = writer.notifyStatement();
    expect(notify).toBeDefined();
    const statement = combineStatements([writer.appendStatement(topic, [thingHappened('thing_notify', 1)]), notify!]);
    await db.query(statement.text, statement.params as unknown[]);
    await writer.committed(db, true);
    await waitFor(() => notifications === 1, 5000, 'the notification of the combined statement');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(notifications).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM svc.outbox WHERE key = 'thing_notify'")).toBe(1);
  });

  it('rejects an invalid envelope and the whole business transaction with it', async () => {
    const bad = { ...thingHappened('thing_2', 1), sequence: 0 };
    await expect(
      db.transaction(async (manager) => {
        await manager.query("INSERT INTO svc.things (id, version) VALUES ('thing_2', 1)");
        await new OutboxWriter().append(manager, topic, [thingHappened('thing_2', 1), bad]);
      }),
    ).rejects.toThrow(EventValidationError);
    expect(await count("SELECT count(*)::int AS n FROM svc.things WHERE id = 'thing_2'")).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM svc.outbox WHERE key = 'thing_2'")).toBe(0);
  });

  it('refuses to write outside a transaction', async () => {
    await expect(new OutboxWriter().append(db.manager, topic, [thingHappened('thing_3', 1)])).rejects.toThrow(
      /open transaction/,
    );
  });

  it('prunes only rows marked sent (by earlier versions) longer ago than the retention', async () => {
    const writer = new OutboxWriter({ schema: 'svc' });
    const events = [1, 2, 3].map((n) => thingHappened('thing_prune', n));
    await db.transaction((manager) => writer.append(manager, topic, events));
    await db.query(`UPDATE svc.outbox SET sent_at = now() - interval '8 days' WHERE event_id = $1`, [events[0]!.id]);
    await db.query(`UPDATE svc.outbox SET sent_at = now() - interval '1 day' WHERE event_id = $1`, [events[1]!.id]);
    const kafka = testKafka();
    const relay = new OutboxRelay({ dataSource: db, producer: createProducer(kafka), schema: 'svc', logger: recordingLogger() });
    expect(await relay.prune(7)).toBe(1);
    const left = (await db.query("SELECT event_id FROM svc.outbox WHERE key = 'thing_prune' ORDER BY id")) as Array<{
      event_id: string;
    }>;
    expect(left.map((r) => r.event_id)).toEqual([events[1]!.id, events[2]!.id]);
  });

  it('flush times out naming the unsent rows when no instance relays', async () => {
    const relay = new OutboxRelay({ dataSource: db, producer: createProducer(testKafka()), schema: 'svc' });
    await expect(relay.flush(100)).rejects.toThrow(/outbox flush timed out with \d+ rows of svc unsent/);
  });

  it('a relay whose database session is killed reconnects, takes the lock again and goes on', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    const logger = recordingLogger();
    const relay = new OutboxRelay({
      dataSource: db,
      producer,
      schema: 'svc',
      pollIntervalMs: 50,
      retry: { initialMs: 10, maxMs: 50 },
      logger,
    });
    cleanup.add(() => relay.stop());
    relay.start();
    const writer = new OutboxWriter();
    const write = (n: number) =>
      db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_killed', n)]));
    await write(1);
    await relay.flush(20_000);

    const killed = (await db.query(
      "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'test:svc:outbox-relay'",
    )) as Array<{ ok: boolean }>;
    expect(killed).toEqual([{ ok: true }]);
    await write(2);
    await relay.flush(20_000);
    expect(relay.stats().active).toBe(true);
    expect(logger.entries.some((e) => e.level === 'error' && /connection/.test(e.message))).toBe(true);
    await relay.stop(); // gives up the schema's lock for the next test's relay
  });

  it('deletes the rows it sent, without waiting for the disk, on every session it opens', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    // Every statement a pg client sends, with the client (the relay's session) that sent it.
    const statements = recordStatements();
    const issued = statements.issued;
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 50, retry: { initialMs: 10, maxMs: 50 }, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    try {
      relay.start();
      const writer = new OutboxWriter();
      await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_async_mark', 1)]));
      await relay.flush(20_000);
      // A new session after the old one is killed is set up the same way.
      await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'test:svc:outbox-relay'");
      await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_async_mark', 2)]));
      await relay.flush(20_000);
      await relay.stop();
    } finally {
      statements.stop();
    }
    expect(await count("SELECT count(*)::int AS n FROM svc.outbox WHERE key = 'thing_async_mark'")).toBe(0);
    // On their own, or with the next cycle's read.
    const marks = issued.filter((q) => /DELETE FROM "svc"\."outbox" WHERE id = ANY/.test(q.text));
    expect(new Set(marks.map((m) => m.client)).size).toBe(2);
    for (const mark of marks) {
      const session = issued.filter((q) => q.client === mark.client);
      const asynchronous = session.findIndex((q) => /^SET synchronous_commit TO off(;|$)/.test(q.text));
      expect(asynchronous).toBeGreaterThanOrEqual(0);
      expect(asynchronous).toBeLessThan(session.indexOf(mark));
    }
  });

  it('plans its read once a session, not at every cycle', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    const statements = recordStatements();
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 50, retry: { initialMs: 10, maxMs: 50 }, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    try {
      relay.start();
      const writer = new OutboxWriter();
      for (let i = 1; i <= 8; i += 1) {
        await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_planned_once', i)]));
        await relay.flush(20_000);
      }
      const read = statements.issued.find((q) => /WITH gone AS \(DELETE FROM "svc"\."outbox"/.test(q.text));
      expect(read).toBeDefined();
      // The relay's own session, asked between its cycles: Postgres plans a named statement custom for its first
      // five runs unless told otherwise, and here went on doing so at every run.
      const { rows } = await read!.client.query<{ generic_plans: string; custom_plans: string }>(
        "SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE name = 'outbox_relay_read'",
      );
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]!.custom_plans)).toBe(0);
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(8);
    } finally {
      statements.stop();
      await relay.stop();
    }
  });

  it("deletes what a cycle sent in the next cycle's read when one follows soon, and on its own otherwise", async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    const statements = recordStatements();
    const writer = new OutboxWriter();
    const write = (key: string) => db.transaction((manager) => writer.append(manager, topic, [thingHappened(key, 1)]));
    const rows = (key: string) => count(`SELECT count(*)::int AS n FROM svc.outbox WHERE key = '${key}'`);
    const alone = () => statements.texts().filter((text) => /^DELETE FROM "svc"\."outbox" WHERE id = ANY/.test(text)).length;
    try {
      // Sent rows wait (here without end) for the next cycle; no poll comes between.
      const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 60_000, sentDeleteWaitMs: 60_000, logger: recordingLogger() });
      relay.start();
      await waitFor(() => relay.stats().active, 20_000, 'the relay to take the lock');
      await relay.flush(20_000);
      const published = relay.stats().published;
      await write('thing_deferred_1');
      await waitFor(() => relay.stats().published === published + 1, 20_000, 'the first row sent');
      expect(await rows('thing_deferred_1')).toBe(1);
      await write('thing_deferred_2');
      await waitFor(() => relay.stats().published === published + 2, 20_000, 'the second row sent');
      // The second cycle's read deleted the first row; the second waits for the next cycle.
      expect(await rows('thing_deferred_1')).toBe(0);
      expect(await rows('thing_deferred_2')).toBe(1);
      const alonePassed = alone();
      // Stopping deletes what it sent, on its own.
      await relay.stop();
      expect(await rows('thing_deferred_2')).toBe(0);
      expect(alone()).toBe(alonePassed + 1);

      // With no next cycle soon, the rows go on their own shortly after they were sent.
      const quick = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 60_000, sentDeleteWaitMs: 50, logger: recordingLogger() });
      cleanup.add(() => quick.stop());
      quick.start();
      await waitFor(() => quick.stats().active, 20_000, 'the relay to take the lock');
      await write('thing_deferred_3');
      await waitFor(async () => (await rows('thing_deferred_3')) === 0, 5000, 'the lone row deleted');
      expect(quick.stats().published).toBe(1);
      await quick.stop();
    } finally {
      statements.stop();
    }
  });

  it('vacuums its outbox after every so many rows it deleted, so reads do not walk past dead rows until autovacuum', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    // Autovacuum kept out of it: every vacuum counted here is the relay's.
    await db.query('ALTER TABLE svc.outbox SET (autovacuum_enabled = false)');
    cleanup.add(() => db.query('ALTER TABLE svc.outbox RESET (autovacuum_enabled)'));
    const vacuums = async () =>
      Number(((await db.query("SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE schemaname = 'svc' AND relname = 'outbox'")) as [{ n: number }])[0].n);
    const writer = new OutboxWriter();
    // Three groups of six rows, each sent before the next is written: each group's deletion passes five rows.
    const send = async (relay: OutboxRelay, key: string) => {
      relay.start();
      for (let group = 0; group < 3; group++) {
        for (let i = 1; i <= 6; i++) await db.transaction((manager) => writer.append(manager, topic, [thingHappened(key, group * 6 + i)]));
        await relay.flush(20_000);
      }
      await relay.stop();
      expect(await count(`SELECT count(*)::int AS n FROM svc.outbox WHERE key = '${key}'`)).toBe(0);
    };

    const before = await vacuums();
    await send(new OutboxRelay({ dataSource: db, producer, schema: 'svc', vacuumAfterDeletedRows: 0, logger: recordingLogger() }), 'thing_unvacuumed');
    expect(await vacuums()).toBe(before);

    await send(new OutboxRelay({ dataSource: db, producer, schema: 'svc', vacuumAfterDeletedRows: 5, logger: recordingLogger() }), 'thing_vacuumed');
    // A vacuum after every five rows deleted, none while one runs: at least two of the three groups' deletions.
    await waitFor(async () => (await vacuums()) >= before + 2, 5000, 'the relay to vacuum its outbox');
  });

  it('publishes a copy of the rows its copies rule names on the copy topic too, in order, same key, value and headers', async () => {
    const kafka = testKafka();
    const copied = uniqueTopic('outbox-copied');
    const copyTopic = uniqueTopic('outbox-copy');
    await ensureTopics(kafka, [topic, copied, copyTopic]);
    const producer = await connectProducer(kafka, cleanup);
    const asked: Array<string | undefined> = [];
    const copies = (from: string, eventType: string | undefined) => {
      asked.push(eventType);
      return from === copied ? [copyTopic] : [];
    };
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', copies, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    const writer = new OutboxWriter();
    const events = [1, 2, 3].map((n) => thingHappened('thing_copied', n));
    await db.transaction(async (manager) => {
      await writer.append(manager, copied, events);
      await writer.append(manager, topic, [thingHappened('thing_not_copied', 1)]);
    });
    relay.start();
    await relay.flush(20_000);
    await relay.stop();

    const originals = await collectMessages(copied, 3, 20_000, kafka, (m) => m.key === 'thing_copied');
    const copiesSent = await collectMessages(copyTopic, 3, 20_000, kafka);
    expect(copiesSent.map((m) => JSON.parse(m.value!).id)).toEqual(events.map((e) => e.id));
    expect(copiesSent.map(({ key, value, headers }) => ({ key, value, headers }))).toEqual(originals.map(({ key, value, headers }) => ({ key, value, headers })));
    // Nothing of the other topic's row reached the copy topic; the rule was asked with each row's event type.
    expect(copiesSent.every((m) => m.key === 'thing_copied')).toBe(true);
    expect(new Set(asked)).toEqual(new Set([THING_HAPPENED]));
  });

  it('lets rows committed right behind the one that woke it join its batch (linger)', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    // No poll wake-ups during the test: only the commits' notifications wake the relay.
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 60_000, lingerMs: 400, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    relay.start();
    await waitFor(() => relay.stats().active, 20_000, 'the relay to take the lock');
    await relay.flush(20_000);
    const writer = new OutboxWriter();
    const before = relay.stats();
    for (let n = 1; n <= 5; n++) {
      await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_linger', n)]));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await relay.flush(20_000);
    const after = relay.stats();
    await relay.stop(); // frees the schema's lock for the next test's relay
    expect(after.published - before.published).toBe(5);
    expect(after.batches - before.batches).toBe(1);
  });

  it('sends the first row after a quiet spell at once and the rows written during the spacing in one batch', async () => {
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 60_000, spacingMs: 1500, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    relay.start();
    await waitFor(() => relay.stats().active, 20_000, 'the relay to take the lock');
    await relay.flush(20_000);
    // Quiet for longer than the spacing: the next row is not held back.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const writer = new OutboxWriter();
    const before = relay.stats();
    await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_spacing', 1)]));
    await waitFor(() => relay.stats().published === before.published + 1, 1200, 'the first row, sent before the spacing ended');
    for (let n = 2; n <= 5; n++) await db.transaction((manager) => writer.append(manager, topic, [thingHappened('thing_spacing', n)]));
    await relay.flush(20_000);
    const after = relay.stats();
    await relay.stop();
    expect(after.published - before.published).toBe(5);
    expect(after.batches - before.batches).toBe(2);
  });

  it('sends rows written while the outbox was jsonb, unchanged, once migrated to text', async () => {
    const database = await createDatabase('outbox_upgrade', cleanup);
    const old = await database.dataSource('svc', [MessagingTables1763769600000]);
    const envelope = { ...thingHappened('thing_upgrade', 1), causation_id: 'evt_000000000000000000000002' };
    // A row as the earlier writer left it: payload and headers as jsonb.
    await old.query(`INSERT INTO svc.outbox (event_id, topic, key, payload, headers) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)`, [
      envelope.id,
      topic,
      'thing_upgrade',
      JSON.stringify(envelope),
      JSON.stringify(envelopeHeaders(envelope)),
    ]);
    const runner = old.createQueryRunner();
    try {
      await new OutboxPlainText1764700000000().up(runner);
    } finally {
      await runner.release();
    }
    const kafka = testKafka();
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    const relay = new OutboxRelay({ dataSource: old, producer, schema: 'svc', pollIntervalMs: 50, logger: recordingLogger() });
    cleanup.add(() => relay.stop());
    relay.start();
    await relay.flush(20_000);
    await relay.stop();
    const [message] = await collectMessages(topic, 1, 20_000, kafka, (m) => m.key === 'thing_upgrade');
    expect(JSON.parse(message!.value!)).toEqual(envelope);
    expect(message!.headers).toEqual(envelopeHeaders(envelope));
  });

  it('keeps the outbox as text with its primary key as the only index, and migrates down and up again', async () => {
    const runner = db.createQueryRunner();
    const indexes = async () =>
      ((await runner.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'svc' AND tablename = 'outbox' ORDER BY indexname")) as Array<{ indexname: string }>).map(
        (row) => row.indexname,
      );
    const types = async () =>
      (await runner.query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'svc' AND table_name = 'outbox' AND column_name IN ('payload', 'headers') ORDER BY column_name",
      )) as Array<{ column_name: string; data_type: string }>;
    try {
      expect(await indexes()).toEqual(['outbox_pkey']);
      expect(await types()).toEqual([
        { column_name: 'headers', data_type: 'text' },
        { column_name: 'payload', data_type: 'text' },
      ]);
      await new OutboxPlainText1764700000000().down(runner);
      expect(await indexes()).toEqual(['outbox_event_id_key', 'outbox_pkey', 'outbox_unsent_idx']);
      await new MessagingTables1763769600000().down(runner);
      expect(await runner.hasTable('svc.outbox')).toBe(false);
      await new MessagingTables1763769600000().up(runner);
      await new OutboxPlainText1764700000000().up(runner);
      expect(await runner.hasTable('svc.inbox')).toBe(true);
      expect(await indexes()).toEqual(['outbox_pkey']);
    } finally {
      await runner.release();
    }
  });

  it("reports the age of the oldest unsent row (the outbox-age alert's series): 0 with none, growing while one waits", async () => {
    const aged = await database.dataSource('aged', [...MESSAGING_MIGRATIONS]);
    expect(await outboxOldestUnsentAgeSeconds(aged, 'aged')).toBe(0);
    const envelope = thingHappened('thing_aged', 1);
    await aged.transaction((manager) => new OutboxWriter({ schema: 'aged' }).append(manager, topic, [envelope]));
    // As if the relay had been away for a minute and a half.
    await aged.query(`UPDATE aged.outbox SET created_at = now() - interval '90 seconds' WHERE event_id = $1`, [envelope.id]);
    const age = await outboxOldestUnsentAgeSeconds(aged, 'aged');
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(120);
    await aged.query('DELETE FROM aged.outbox');
    expect(await outboxOldestUnsentAgeSeconds(aged, 'aged')).toBe(0);
  });
});
