import { deadLetterTopic, type EventEnvelope } from '@payments/events';
import {
  ensureTopics,
  EventConsumer,
  MESSAGING_MIGRATIONS,
  OutboxRelay,
  OutboxWriter,
  type HandleOutcome,
} from '../src';
import { collectMessages, groupLag, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource, EntityManager } from 'typeorm';
import {
  Cleanup,
  connectProducer,
  createDatabase,
  CreateEffects1763769700001,
  CreateThings1763769700000,
  recordingLogger,
  thingHappened,
} from './support/fixtures';

const EVENTS = 30;
const AGGREGATES = 5;

describe('outbox and inbox: one effect per event across a relay crash and a consumer crash', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  const topic = uniqueTopic('exactly_once');
  let writerDb: DataSource;
  let readerDb: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const db = await createDatabase('exactly_once', cleanup);
    writerDb = await db.dataSource('writer', [...MESSAGING_MIGRATIONS, CreateThings1763769700000]);
    readerDb = await db.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  const unsent = async () =>
    ((await writerDb.query('SELECT count(*)::int AS n FROM writer.outbox WHERE sent_at IS NULL')) as [{ n: number }])[0].n;

  it('applies every event exactly once although both duplicates really were delivered', async () => {
    // State change and event in one transaction.
    const writer = new OutboxWriter();
    const written: EventEnvelope[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      const aggregateId = `thing_${i % AGGREGATES}`;
      await writerDb.transaction(async (manager) => {
        const [{ version }] = (await manager.query(
          `INSERT INTO writer.things (id, version) VALUES ($1, 1)
           ON CONFLICT (id) DO UPDATE SET version = things.version + 1 RETURNING version`,
          [aggregateId],
        )) as [{ version: number }];
        const envelope = thingHappened(aggregateId, version);
        await writer.append(manager, topic, [envelope]);
        written.push(envelope);
      });
    }
    expect(await unsent()).toBe(EVENTS);

    // (a) The relay dies after publishing and before marking the rows sent.
    const publishedByDyingRelay: string[] = [];
    const dyingRelay = new OutboxRelay({
      dataSource: writerDb,
      producer,
      schema: 'writer',
      pollIntervalMs: 100,
      retry: { initialMs: 20, maxMs: 50 },
      logger: recordingLogger(),
      hooks: {
        afterPublish: (ids) => {
          publishedByDyingRelay.push(...ids);
          throw new Error('relay died between publish and mark');
        },
      },
    });
    cleanup.add(() => dyingRelay.stop());
    dyingRelay.start();
    await waitFor(() => publishedByDyingRelay.length > 0, 20_000, 'the first relay to publish');
    await dyingRelay.stop();
    expect(await unsent()).toBe(EVENTS);

    const relay = new OutboxRelay({ dataSource: writerDb, producer, schema: 'writer', pollIntervalMs: 100 });
    cleanup.add(() => relay.stop());
    relay.start();
    await relay.flush(20_000);
    expect(await unsent()).toBe(0);
    expect(relay.stats().published).toBe(EVENTS);

    // The topic really holds every event at least twice.
    const onTopic = await collectMessages(topic, publishedByDyingRelay.length + EVENTS, 20_000, kafka);
    const copies = new Map<string, number>();
    for (const message of onTopic) {
      const id = (JSON.parse(message.value!) as EventEnvelope).id;
      copies.set(id, (copies.get(id) ?? 0) + 1);
    }
    expect(copies.size).toBe(EVENTS);
    for (const envelope of written) expect(copies.get(envelope.id)).toBeGreaterThanOrEqual(2);

    // (b) The consumer dies after its effect committed and before the offset is committed.
    const groupId = uniqueName('effects');
    const consumerOptions = {
      kafka,
      groupId,
      topics: [topic],
      dataSource: readerDb,
      consumerName: 'effects',
      producer,
      retry: { attempts: 3, initialMs: 10, maxMs: 50 },
      handler: async (envelope: EventEnvelope, manager: EntityManager) => {
        await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [
          envelope.id,
          envelope.aggregate_id,
          envelope.sequence,
        ]);
      },
    };
    let handledByFirst = 0;
    let crashedOn: string | undefined;
    const first = new EventConsumer({
      ...consumerOptions,
      logger: recordingLogger(),
      hooks: {
        afterHandle: (envelope, outcome) => {
          if (outcome === 'handled' && ++handledByFirst === 7) {
            crashedOn = envelope.id;
            throw new Error('consumer died before committing its offset');
          }
        },
      },
    });
    cleanup.add(() => first.stop());
    await first.start();
    await waitFor(() => first.failure !== undefined, 30_000, 'the first consumer to crash');
    await first.stop();
    expect(crashedOn).toBeDefined();

    const seenBySecond: Array<[string, HandleOutcome]> = [];
    const second = new EventConsumer({
      ...consumerOptions,
      hooks: { afterHandle: (envelope, outcome) => void seenBySecond.push([envelope.id, outcome]) },
    });
    cleanup.add(() => second.stop());
    await second.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the second consumer to catch up');
    await second.stop();

    // The effect committed by the crashed consumer was re-delivered and skipped, not applied again.
    expect(seenBySecond).toContainEqual([crashedOn, 'duplicate']);
    const effects = (await readerDb.query(
      'SELECT event_id, count(*)::int AS n FROM reader.effects GROUP BY event_id',
    )) as Array<{ event_id: string; n: number }>;
    expect(effects).toHaveLength(EVENTS);
    expect(effects.every((row) => row.n === 1)).toBe(true);
    expect(new Set(effects.map((row) => row.event_id))).toEqual(new Set(written.map((e) => e.id)));

    const [a, b] = [first.stats(), second.stats()];
    expect(a.handled + b.handled).toBe(EVENTS);
    // Every event arrived at least twice (relay re-send) and one more time after the consumer crash.
    expect(a.duplicates + b.duplicates).toBeGreaterThanOrEqual(EVENTS + 1);
    expect(a.deadLettered + b.deadLettered).toBe(0);
  });
});
