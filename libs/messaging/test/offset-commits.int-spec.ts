import { deadLetterTopic } from '@payments/events';
import { groupLag, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Consumer, ConsumerConfig, Kafka, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { ensureTopics, EventConsumer, MESSAGING_MIGRATIONS } from '../src';
import { Cleanup, connectProducer, createDatabase, CreateEffects1763769700001, recordingLogger, thingHappened } from './support/fixtures';

const KEY = 'thing_committed';

/** The same client, with every offset commit its consumers send recorded (the commit requests themselves). */
function countingCommits(kafka: Kafka): { kafka: Kafka; commits: number[] } {
  const commits: number[] = [];
  const consumer = kafka.consumer.bind(kafka);
  const counting = Object.create(kafka) as Kafka;
  counting.consumer = (config: ConsumerConfig): Consumer => {
    const created = consumer(config);
    created.on(created.events.COMMIT_OFFSETS, () => void commits.push(Date.now()));
    return created;
  };
  return { kafka: counting, commits };
}

describe('offset commits', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('offset_commits', cleanup);
    db = await database.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  async function started(topic: string, offsetCommitIntervalMs: number, parked: string[] = []) {
    const { kafka: client, commits } = countingCommits(kafka);
    const handled: number[] = [];
    const groupId = uniqueName('commits');
    const consumer = new EventConsumer({
      kafka: client,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'commits',
      producer,
      offsetCommitIntervalMs,
      logger: recordingLogger(),
      retry: { attempts: 2, initialMs: 5, maxMs: 20 },
      observer: { deadLettered: (from) => void parked.push(from) },
      handler: async (envelope, manager) => {
        if ((envelope.data as { poison?: boolean }).poison) throw new Error('cannot apply a poisoned thing');
        await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [envelope.id, envelope.aggregate_id, envelope.sequence]);
      },
      hooks: { afterHandle: (envelope) => void handled.push(envelope.sequence) },
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    return { consumer, groupId, commits, handled };
  }

  /** Events one at a time, each its own fetch and batch (one event per batch is what an ordinary rate gives). */
  async function sendOneByOne(topic: string, from: number, count: number, handled: number[]): Promise<void> {
    for (let sequence = from; sequence < from + count; sequence += 1) {
      await producer.send({ topic, acks: -1, messages: [{ key: KEY, value: JSON.stringify(thingHappened(KEY, sequence)) }] });
      await waitFor(() => handled.includes(sequence), 10_000, `event ${sequence} to be handled`);
    }
  }

  it('commits per interval, not per batch, and commits what it handled when it stops', async () => {
    const topic = uniqueTopic('commits');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    // An interval longer than the test: only stop() may commit.
    const { consumer, groupId, commits, handled } = await started(topic, 600_000);

    await sendOneByOne(topic, 1, 12, handled);
    // Twelve batches, each handled and its offset resolved: none committed yet (every batch committed before).
    expect(commits).toHaveLength(0);
    expect(await groupLag(kafka, groupId, topic)).toBe(12);

    await consumer.stop();
    expect(commits).toHaveLength(1);
    expect(await groupLag(kafka, groupId, topic)).toBe(0);
  });

  it('commits a parked event at once, so an instance dying before the interval does not park it again', async () => {
    const topic = uniqueTopic('commits_parked');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const parked: string[] = [];
    const { consumer, groupId, commits, handled } = await started(topic, 600_000, parked);

    await sendOneByOne(topic, 1, 2, handled);
    await producer.send({ topic, acks: -1, messages: [{ key: KEY, value: JSON.stringify(thingHappened(KEY, 3, { poison: true })) }] });
    await waitFor(() => parked.length === 1, 10_000, 'the poisoned event to be parked');
    // The interval is far off: only the commit made for the parked event covers it (and the two before it).
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 5_000, 'the parked event to be committed');
    expect(commits).toHaveLength(1);
    await consumer.stop();
  });

  it('commits once the interval is up, also when the events stopped coming', async () => {
    const topic = uniqueTopic('commits_idle');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const { consumer, groupId, handled } = await started(topic, 3000);

    // One send, one batch, well within the interval of the join: the batch leaves its offsets uncommitted.
    await producer.send({ topic, acks: -1, messages: [1, 2, 3].map((sequence) => ({ key: KEY, value: JSON.stringify(thingHappened(KEY, sequence)) })) });
    await waitFor(() => handled.length === 3, 10_000, 'the three events to be handled');
    expect(await groupLag(kafka, groupId, topic)).toBe(3);
    // Nothing more comes, so no batch follows: only an idle fetch past the interval can commit the three.
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 10_000, 'the handled events to be committed while idle');
    await consumer.stop();
  });
});
