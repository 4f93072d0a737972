import type { SqlStatement } from '@payments/database';
import { deadLetterTopic, type EventEnvelope } from '@payments/events';
import { collectMessages, groupLag, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Message, Producer } from 'kafkajs';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ensureTopics, EventConsumer, MESSAGING_MIGRATIONS, type HandleOutcome } from '../src';
import { Cleanup, connectProducer, createDatabase, CreateEffects1763769700001, recordingLogger, thingHappened } from './support/fixtures';

/** A handler that gathers each event's effect and writes a run's effects with its inbox claim (see ClaimedWrites). */
function gatheringHandler() {
  const gathered = new WeakMap<EntityManager, Array<{ id: string; aggregate: string; sequence: string }>>();
  const inTransaction: boolean[] = [];
  return {
    inTransaction,
    handler: async (envelope: EventEnvelope, manager: EntityManager) => {
      inTransaction.push(manager.queryRunner?.isTransactionActive ?? false);
      // A poisoned event's sequence is not a number: the run's statement fails on it, as a bad write would.
      const effect = { id: envelope.id, aggregate: envelope.aggregate_id, sequence: (envelope.data as { poison?: boolean }).poison ? 'poison' : String(envelope.sequence) };
      gathered.set(manager, [...(gathered.get(manager) ?? []), effect]);
    },
    claimedWrites: (manager: EntityManager): SqlStatement | null => {
      const effects = gathered.get(manager);
      if (!effects) return null;
      return {
        text: `effects AS (
          INSERT INTO reader.effects (event_id, aggregate_id, sequence)
          SELECT e.id, e.aggregate, e.sequence FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS e(id, aggregate, sequence, n)
          WHERE e.id IN (SELECT event_id FROM claimed) ORDER BY e.n)`,
        params: [effects.map((e) => e.id), effects.map((e) => e.aggregate), effects.map((e) => e.sequence)],
      };
    },
  };
}

describe('writes made with the inbox claim (ClaimedWrites)', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;
  /** What the consumer's DataSource sent: statements on the pool, connections taken for a transaction. */
  const sent = { statements: [] as string[], connections: 0 };

  beforeAll(async () => {
    const database = await createDatabase('claimed_writes', cleanup);
    db = await database.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    producer = await connectProducer(kafka, cleanup);
    const pool = (db.driver as PostgresDriver).master as { query: (...args: unknown[]) => unknown; connect: (...args: unknown[]) => unknown };
    const query = pool.query.bind(pool);
    // pool.query takes a connection itself (synchronously): only connections taken otherwise hold a transaction.
    let inQuery = false;
    pool.query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string };
      sent.statements.push(typeof config === 'string' ? config : config.text);
      inQuery = true;
      try {
        return query(...args);
      } finally {
        inQuery = false;
      }
    };
    const connect = pool.connect.bind(pool);
    pool.connect = (...args: unknown[]) => {
      if (!inQuery) sent.connections += 1;
      return connect(...args);
    };
  });

  afterAll(() => cleanup.run());

  it('writes a run and its inbox rows in one statement with no transaction, each event once', async () => {
    const topic = uniqueTopic('claimed_writes');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const [e1, e2, e3] = [1, 2, 3].map((n) => thingHappened('thing_claimed', n)) as [EventEnvelope, EventEnvelope, EventEnvelope];
    // One send, one key: one fetch. e2 twice in the run, e1 again in a later run.
    await producer.send({ topic, acks: -1, messages: [e1, e2, e2, e3].map((e): Message => ({ key: 'thing_claimed', value: JSON.stringify(e) })) });
    const { handler, claimedWrites, inTransaction } = gatheringHandler();
    const seen: Array<[number, HandleOutcome]> = [];
    const groupId = uniqueName('claimed_writes');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'claimed_writes',
      producer,
      logger: recordingLogger(),
      handler,
      claimedWrites,
      hooks: { afterHandle: (envelope, outcome) => void seen.push([envelope.sequence, outcome]) },
    });
    cleanup.add(() => consumer.stop());
    sent.statements.length = 0;
    sent.connections = 0;
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass the first run');
    await producer.send({ topic, acks: -1, messages: [{ key: 'thing_claimed', value: JSON.stringify(e1) }] });
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass the repeat');
    await consumer.stop();

    // The run's claim and its writes were one statement on the pool; no connection was taken for a transaction
    // (BEGIN and COMMIT would go on such a connection, never through the pool's own query).
    const runs = sent.statements.filter((text) => text.includes('claimed AS'));
    expect(runs).toHaveLength(2);
    expect(sent.connections).toBe(0);
    expect(inTransaction.every((active) => !active)).toBe(true);

    const effects = (await db.query("SELECT event_id, sequence FROM reader.effects WHERE aggregate_id = 'thing_claimed' ORDER BY id")) as Array<{ event_id: string; sequence: number }>;
    expect(effects).toEqual([e1, e2, e3].map((e) => ({ event_id: e.id, sequence: e.sequence })));
    // Each effect was written in the same transaction as its inbox row.
    const together = (await db.query(
      `SELECT count(*)::int AS n FROM reader.effects f JOIN reader.inbox i ON i.event_id = f.event_id AND i.consumer = 'claimed_writes'
       WHERE f.xmin = i.xmin AND f.aggregate_id = 'thing_claimed'`,
    )) as [{ n: number }];
    expect(together[0].n).toBe(3);
    expect(seen).toEqual([
      [1, 'handled'],
      [2, 'handled'],
      [2, 'duplicate'],
      [3, 'handled'],
      [1, 'duplicate'],
    ]);
    expect(consumer.stats()).toMatchObject({ handled: 3, duplicates: 2, deadLettered: 0 });
  });

  it('writes nothing of a run whose statement fails, redoes its events one by one, and parks the one at fault', async () => {
    const topic = uniqueTopic('claimed_poison');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const events = [1, 2, 3].map((n) => thingHappened('thing_claimed_poison', n, n === 2 ? { poison: true } : {}));
    await producer.send({ topic, acks: -1, messages: events.map((e): Message => ({ key: 'thing_claimed_poison', value: JSON.stringify(e) })) });
    const { handler, claimedWrites } = gatheringHandler();
    const groupId = uniqueName('claimed_poison');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'claimed_poison',
      producer,
      retry: { attempts: 3, initialMs: 5, maxMs: 20 },
      logger: recordingLogger(),
      handler,
      claimedWrites,
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();

    const effects = (await db.query("SELECT sequence FROM reader.effects WHERE aggregate_id = 'thing_claimed_poison' ORDER BY id")) as Array<{ sequence: number }>;
    expect(effects.map((row) => row.sequence)).toEqual([1, 3]);
    // The failed run's claim went with it: the poison has no inbox row, so nothing marks it handled.
    const inbox = (await db.query("SELECT event_id FROM reader.inbox WHERE consumer = 'claimed_poison'")) as Array<{ event_id: string }>;
    expect(new Set(inbox.map((row) => row.event_id))).toEqual(new Set([events[0]!.id, events[2]!.id]));
    expect(consumer.stats()).toMatchObject({ handled: 2, duplicates: 0, deadLettered: 1 });
    const [parked] = await collectMessages(deadLetterTopic(topic), 1, 20_000, kafka);
    expect(parked!.value).toBe(JSON.stringify(events[1]));
    expect(parked!.headers['dlq-reason']).toMatch(/invalid input syntax/);
  });
});
