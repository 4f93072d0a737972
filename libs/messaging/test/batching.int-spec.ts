import { deadLetterTopic, newEnvelope, registerEventType, type EventEnvelope } from '@payments/events';
import { collectMessages, groupLag, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Message, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { ensureTopics, EventConsumer, MESSAGING_MIGRATIONS, type HandleOutcome } from '../src';
import { Cleanup, connectProducer, createDatabase, CreateEffects1763769700001, recordingLogger, THING_HAPPENED, thingHappened } from './support/fixtures';

// A type the consumer below does not act on.
const THING_NOTED = 'test.thing_noted';
registerEventType(THING_NOTED, { version: 1, dataSchema: { type: 'object' } });

const KEY = 'thing_batched';

interface Call {
  sequence: number;
  attempt: number;
  txid: string;
}

describe('batched inbox transactions', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('batching', cleanup);
    db = await database.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  it('handles a fetched batch in one transaction, isolates a poison in it and applies the rest once, in order', async () => {
    const topic = uniqueTopic('batching');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const event = (sequence: number, data: Record<string, unknown> = {}) => thingHappened(KEY, sequence, data);
    const [e1, e2, e3, poison, e5, e6, e7, e8] = [
      event(1),
      event(2),
      event(3),
      event(4, { poison: true }),
      event(5),
      event(6),
      event(7),
      event(8),
    ] as [EventEnvelope, EventEnvelope, EventEnvelope, EventEnvelope, EventEnvelope, EventEnvelope, EventEnvelope, EventEnvelope];
    // One send, one key: a single record batch on one partition, so the consumer's first fetch holds all of it.
    // e2 comes again after the poison (its first copy is handled by then) and e8 twice in a row (same batch).
    const sent = [e1, e2, e3, poison, e5, e6, e2, e7, e8, e8];
    await producer.send({
      topic,
      acks: -1,
      messages: sent.map((envelope): Message => ({ key: KEY, value: JSON.stringify(envelope) })),
    });

    const calls: Call[] = [];
    const seen: Array<[number, HandleOutcome]> = [];
    const groupId = uniqueName('batching');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'batching',
      producer,
      retry: { attempts: 3, initialMs: 5, maxMs: 20 },
      logger: recordingLogger(),
      handler: async (envelope, manager, ctx) => {
        const [{ txid }] = (await manager.query('SELECT txid_current()::text AS txid')) as [{ txid: string }];
        calls.push({ sequence: envelope.sequence, attempt: ctx.attempt, txid });
        if ((envelope.data as { poison?: boolean }).poison) throw new Error('cannot apply a poisoned thing');
        await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [
          envelope.id,
          envelope.aggregate_id,
          envelope.sequence,
        ]);
      },
      hooks: { afterHandle: (envelope, outcome) => void seen.push([envelope.sequence, outcome]) },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();

    // Effects: every good event once, in offset order; the poison has none.
    const effects = (await db.query('SELECT sequence FROM reader.effects ORDER BY id')) as Array<{ sequence: number }>;
    expect(effects.map((row) => row.sequence)).toEqual([1, 2, 3, 5, 6, 7, 8]);

    // The batch ran 1, 2, 3 and the poison in one transaction; after it failed, 1, 2 and 3 were redone one per
    // transaction, the poison was retried alone (its batch try was attempt 1), and the events after it went
    // back to one shared transaction, where the second copies of 2 and 8 found their inbox rows.
    expect(calls.map((call) => [call.sequence, call.attempt])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 2],
      [4, 3],
      [5, 1],
      [6, 1],
      [7, 1],
      [8, 1],
    ]);
    const txids = calls.map((call) => call.txid);
    const [batch, alone1, alone2, alone3, retry2, retry3, after] = [
      txids[0],
      txids[4],
      txids[5],
      txids[6],
      txids[7],
      txids[8],
      txids[9],
    ];
    expect(txids.slice(0, 4)).toEqual([batch, batch, batch, batch]);
    expect(txids.slice(9)).toEqual([after, after, after, after]);
    expect(new Set([batch, alone1, alone2, alone3, retry2, retry3, after]).size).toBe(7);

    // The hook saw every delivery once, in offset order, each after its commit.
    expect(seen).toEqual([
      [1, 'handled'],
      [2, 'handled'],
      [3, 'handled'],
      [5, 'handled'],
      [6, 'handled'],
      [2, 'duplicate'],
      [7, 'handled'],
      [8, 'handled'],
      [8, 'duplicate'],
    ]);
    expect(consumer.stats()).toEqual({
      handled: 7,
      duplicates: 2,
      ignored: 0,
      deadLettered: 1,
      failedAttempts: 3,
      transactions: 4,
      fallbacks: 1,
    });
    const inbox = (await db.query("SELECT event_id FROM reader.inbox WHERE consumer = 'batching'")) as Array<{ event_id: string }>;
    expect(new Set(inbox.map((row) => row.event_id))).toEqual(new Set([e1, e2, e3, e5, e6, e7, e8].map((e) => e.id)));

    const [parked] = await collectMessages(deadLetterTopic(topic), 1, 20_000, kafka);
    expect(parked!.value).toBe(JSON.stringify(poison));
    expect(parked!.headers).toMatchObject({ 'dlq-original-offset': '3', 'dlq-attempts': '3' });
  });

  it('redoes every event of a batch alone when the commit itself fails, and parks only the one at fault', async () => {
    // A deferred foreign key fails at COMMIT, after every handler of the batch succeeded: no handler is to blame.
    await db.query('CREATE TABLE reader.parents (id int PRIMARY KEY)');
    await db.query('CREATE TABLE reader.children (parent int NOT NULL REFERENCES reader.parents DEFERRABLE INITIALLY DEFERRED)');
    const topic = uniqueTopic('batching_commit');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const events = [1, 2, 3].map((n) => thingHappened('thing_commit', n, n === 2 ? { orphan: true } : {}));
    await producer.send({
      topic,
      acks: -1,
      messages: events.map((envelope): Message => ({ key: 'thing_commit', value: JSON.stringify(envelope) })),
    });

    const logger = recordingLogger();
    const groupId = uniqueName('batching_commit');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'batching_commit',
      producer,
      retry: { attempts: 3, initialMs: 5, maxMs: 20 },
      logger,
      handler: async (envelope, manager) => {
        if ((envelope.data as { orphan?: boolean }).orphan) await manager.query('INSERT INTO reader.children VALUES (404)');
        await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [
          envelope.id,
          envelope.aggregate_id,
          envelope.sequence,
        ]);
      },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();

    const effects = (await db.query(
      "SELECT sequence FROM reader.effects WHERE aggregate_id = 'thing_commit' ORDER BY id",
    )) as Array<{ sequence: number }>;
    expect(effects.map((row) => row.sequence)).toEqual([1, 3]);
    expect(consumer.stats()).toEqual({
      handled: 2,
      duplicates: 0,
      ignored: 0,
      deadLettered: 1,
      failedAttempts: 3,
      transactions: 2,
      fallbacks: 1,
    });
    const batchFailure = logger.entries.filter((e) => e.message.startsWith('batch transaction failed'));
    expect(batchFailure).toHaveLength(1);
    expect(batchFailure[0]!.context).toMatchObject({ offset: '0', lastOffset: '2', events: 3 });
    const [parked] = await collectMessages(deadLetterTopic(topic), 1, 20_000, kafka);
    expect(parked!.value).toBe(JSON.stringify(events[1]));
    expect(parked!.headers['dlq-reason']).toMatch(/foreign key/);
    expect(parked!.headers).toMatchObject({ 'dlq-original-offset': '1', 'dlq-attempts': '3' });
  });
  it('runs beforeCommit once per transaction, after its events, and redoes the events one per transaction when it fails', async () => {
    const topic = uniqueTopic('before_commit');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const events = [1, 2, 3].map((sequence) => thingHappened('thing_before_commit', sequence));
    await producer.send({ topic, acks: -1, messages: events.map((envelope): Message => ({ key: 'thing_before_commit', value: JSON.stringify(envelope) })) });
    const gathered = new Map<unknown, number[]>();
    const flushes: number[][] = [];
    let failFirstFlush = true;
    const groupId = uniqueName('before_commit');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'before_commit',
      producer,
      retry: { attempts: 3, initialMs: 5, maxMs: 20 },
      logger: recordingLogger(),
      handler: async (envelope, manager) => void gathered.set(manager, [...(gathered.get(manager) ?? []), envelope.sequence]),
      beforeCommit: async (manager) => {
        const sequences = gathered.get(manager) ?? [];
        gathered.delete(manager);
        if (failFirstFlush) {
          failFirstFlush = false;
          throw new Error('flush failed');
        }
        flushes.push(sequences);
        for (const sequence of sequences) {
          await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [`${topic}-${sequence}`, 'thing_before_commit', sequence]);
        }
      },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();
    // The batch's flush failed: nothing of it committed, and each event was handled and flushed on its own.
    expect(flushes).toEqual([[1], [2], [3]]);
    const effects = (await db.query("SELECT sequence FROM reader.effects WHERE aggregate_id = 'thing_before_commit' ORDER BY id")) as Array<{ sequence: number }>;
    expect(effects.map((row) => row.sequence)).toEqual([1, 2, 3]);
  });
  it('lets event types it does not act on pass without a transaction or an inbox row, in offset order with the rest', async () => {
    const topic = uniqueTopic('batching_types');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const noted = (n: number) =>
      newEnvelope({ type: THING_NOTED, aggregate_id: KEY, aggregate_type: 'thing', sequence: 100 + n, merchant_id: 'mer_test', environment: 'test', correlation_id: `req_noted_${n}`, data: {} });
    const [h1, h2] = [thingHappened(KEY, 1), thingHappened(KEY, 2)];
    const send = (envelopes: EventEnvelope[]) =>
      producer.send({ topic, acks: -1, messages: envelopes.map((envelope): Message => ({ key: KEY, value: JSON.stringify(envelope) })) });
    const handled: number[] = [];
    const seen: Array<[number, HandleOutcome]> = [];
    const groupId = uniqueName('batching_types');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'batching_types',
      producer,
      eventTypes: [THING_HAPPENED],
      logger: recordingLogger(),
      handler: async (envelope) => void handled.push(envelope.sequence),
      hooks: { afterHandle: (envelope, outcome) => void seen.push([envelope.sequence, outcome]) },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await send([noted(1), h1, noted(2), noted(3), h2, h1]);
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    // A fetch of nothing but types it ignores: no transaction at all.
    const before = consumer.stats();
    await send([noted(4), noted(5)]);
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass the ignored messages');
    await consumer.stop();

    expect(handled).toEqual([1, 2]);
    expect(seen).toEqual([
      [101, 'ignored'],
      [1, 'handled'],
      [102, 'ignored'],
      [103, 'ignored'],
      [2, 'handled'],
      [1, 'duplicate'],
      [104, 'ignored'],
      [105, 'ignored'],
    ]);
    expect(consumer.stats()).toMatchObject({ handled: 2, duplicates: 1, ignored: 5, deadLettered: 0, transactions: before.transactions });
    const inbox = (await db.query("SELECT event_id FROM reader.inbox WHERE consumer = 'batching_types'")) as Array<{ event_id: string }>;
    expect(new Set(inbox.map((row) => row.event_id))).toEqual(new Set([h1.id, h2.id]));
  });

  it('does not read the value of an event whose type header names a type it does not act on', async () => {
    const topic = uniqueTopic('batching_headers');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const handled: number[] = [];
    const seen: Array<[string, HandleOutcome]> = [];
    const groupId = uniqueName('batching_headers');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'batching_headers',
      producer,
      eventTypes: [THING_HAPPENED],
      logger: recordingLogger(),
      handler: async (envelope) => void handled.push(envelope.sequence),
      hooks: { afterHandle: (envelope, outcome) => void seen.push([envelope.type, outcome]) },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    const happened = thingHappened('thing_headers', 1);
    // The skipped one's value is not even JSON: read, it would be dead-lettered as invalid.
    await producer.send({
      topic,
      acks: -1,
      messages: [
        { key: KEY, value: 'not json at all', headers: { 'event-id': 'evt_skipped', 'event-type': THING_NOTED } },
        { key: KEY, value: JSON.stringify(happened), headers: { 'event-id': happened.id, 'event-type': happened.type } },
      ],
    });
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass both messages');
    await consumer.stop();
    expect(handled).toEqual([1]);
    expect(seen).toEqual([
      [THING_NOTED, 'ignored'],
      [THING_HAPPENED, 'handled'],
    ]);
    expect(consumer.stats()).toMatchObject({ handled: 1, ignored: 1, deadLettered: 0 });
  });

  it('after a fetch, lingers so that the events of the next span share one transaction', async () => {
    const topic = uniqueTopic('batching_linger');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const handled: number[] = [];
    const groupId = uniqueName('batching_linger');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'batching_linger',
      producer,
      lingerMs: 1500,
      logger: recordingLogger(),
      handler: async (envelope) => void handled.push(envelope.sequence),
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    const key = 'thing_linger';
    const send = (sequence: number) => producer.send({ topic, acks: -1, messages: [{ key, value: JSON.stringify(thingHappened(key, sequence)) }] });
    // The first event after a quiet spell is handled at once: the consumer was waiting on its fetch.
    await send(1);
    await waitFor(async () => handled.length === 1, 30_000, 'the first event');
    const afterFirst = consumer.stats().transactions;
    // Five sends one after another while the consumer lingers: its next fetch carries them all.
    for (let sequence = 2; sequence <= 6; sequence++) await send(sequence);
    await waitFor(async () => handled.length === 6, 30_000, 'the other five');
    await consumer.stop();
    expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
    expect(consumer.stats().transactions - afterFirst).toBe(1);
  });
});
