import { deadLetterTopic, type EventEnvelope } from '@payments/events';
import {
  ensureTopics,
  EventConsumer,
  MESSAGING_MIGRATIONS,
  OutboxRelay,
  OutboxWriter,
} from '../src';
import { collectMessages, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { Cleanup, connectProducer, createDatabase, recordingLogger, thingHappened } from './support/fixtures';

const EVENTS = 300;
const PER_TRANSACTION = 5;

describe('ordering of one aggregate across relay restarts and competing relays', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  const topic = uniqueTopic('ordering');
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('ordering', cleanup);
    db = await database.dataSource('writer', [...MESSAGING_MIGRATIONS]);
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  it('delivers sequences 1..300 strictly increasing, each published once', async () => {
    const publishedBy = new Map<string, string[]>();
    const relay = (name: string) => {
      publishedBy.set(name, []);
      const instance = new OutboxRelay({
        dataSource: db,
        producer,
        schema: 'writer',
        batchSize: 7,
        pollIntervalMs: 50,
        logger: recordingLogger(),
        hooks: { afterPublish: (ids) => void publishedBy.get(name)!.push(...ids) },
      });
      cleanup.add(() => instance.stop());
      instance.start();
      return instance;
    };
    const publishedCount = () => [...publishedBy.values()].reduce((sum, ids) => sum + ids.length, 0);

    const sequences: number[] = [];
    const consumer = new EventConsumer({
      kafka,
      groupId: uniqueName('ordering'),
      topics: [topic],
      dataSource: db,
      consumerName: 'ordering',
      producer,
      handler: async (envelope) => void sequences.push(envelope.sequence),
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();

    // Two instances from the start: the second stands by while the first holds the lock.
    const first = relay('first');
    const second = relay('second');

    // One aggregate, written in small transactions, a third at a time; each third is written while the relay
    // that was active is being stopped, so every instance change happens with events arriving.
    const writer = new OutboxWriter();
    let next = 1;
    const writeThird = async () => {
      for (const end = next + EVENTS / 3; next < end; next += PER_TRANSACTION) {
        const batch = Array.from({ length: PER_TRANSACTION }, (_, i) => thingHappened('thing_ordered', next + i));
        await db.transaction((manager) => writer.append(manager, topic, batch));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const activeOne = async (...relays: OutboxRelay[]) => {
      await waitFor(() => relays.some((r) => r.stats().active), 10_000, 'a relay to hold the lock');
      return relays.find((r) => r.stats().active)!;
    };

    await writeThird();
    await waitFor(() => publishedCount() >= 100, 30_000, '100 events published');
    let writing = writeThird();
    await (await activeOne(first, second)).stop();
    const restarted = relay('restarted');
    await writing;
    await waitFor(() => publishedCount() >= 200, 30_000, '200 events published');
    writing = writeThird();
    // Whichever instance took over is stopped now; one that stood by all along continues.
    await (await activeOne(first, second, restarted)).stop();
    const last = relay('last');
    await writing;
    await last.flush(30_000);
    await waitFor(() => sequences.length >= EVENTS, 30_000, 'the consumer to see every event');

    expect(sequences).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));

    // Clean hand-overs: no row was ever published by two instances, and more than one instance published.
    const all = [...publishedBy.values()].flat();
    expect(all).toHaveLength(EVENTS);
    expect(new Set(all).size).toBe(EVENTS);
    expect([...publishedBy.values()].filter((ids) => ids.length > 0).length).toBeGreaterThanOrEqual(3);

    // The partition itself holds the events in order (one key, one partition).
    const onTopic = await collectMessages(topic, EVENTS, 20_000, kafka);
    expect(new Set(onTopic.map((m) => m.partition)).size).toBe(1);
    const inOffsetOrder = onTopic.sort((a, b) => Number(a.offset) - Number(b.offset));
    expect(inOffsetOrder.map((m) => (JSON.parse(m.value!) as EventEnvelope).sequence)).toEqual(
      Array.from({ length: EVENTS }, (_, i) => i + 1),
    );
  });
});
