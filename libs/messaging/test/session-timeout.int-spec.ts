import { deadLetterTopic } from '@payments/events';
import { testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { brokerSessionTimeoutBounds, ensureTopics, EventConsumer, MESSAGING_MIGRATIONS, sessionTimeoutFor } from '../src';
import { Cleanup, connectProducer, createDatabase, recordingLogger, thingHappened } from './support/fixtures';

// A broker refuses a consumer whose session timeout is below its group.min.session.timeout.ms (Kafka's default is
// 6 s; ours asks for 3 s). Against such a broker a consumer takes the broker's floor and says so, instead of never
// joining.
describe('consumer session timeout within the broker\'s bounds', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('session_timeout', cleanup);
    db = await database.dataSource('writer', [...MESSAGING_MIGRATIONS]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  it('reads the bounds from the brokers and keeps a wanted timeout inside them, warning when it cannot have it', async () => {
    const bounds = await brokerSessionTimeoutBounds(kafka);
    expect(bounds.minMs).toBeGreaterThan(0);
    expect(bounds.maxMs).toBeGreaterThanOrEqual(bounds.minMs);
    const logger = recordingLogger();
    expect(await sessionTimeoutFor(kafka, bounds.minMs, logger)).toBe(bounds.minMs);
    expect(logger.entries).toEqual([]);
    expect(await sessionTimeoutFor(kafka, bounds.minMs - 1, logger)).toBe(bounds.minMs);
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('group.min.session.timeout.ms'), context: expect.objectContaining({ chosenMs: bounds.minMs }) }),
    ]);
  });

  it('a consumer asking for less than the broker allows still joins and handles events', async () => {
    const { minMs } = await brokerSessionTimeoutBounds(kafka);
    const topic = uniqueTopic('session_timeout');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const seen: number[] = [];
    const consumer = new EventConsumer({
      kafka,
      groupId: uniqueName('session_timeout'),
      topics: [topic],
      dataSource: db,
      consumerName: 'session-timeout',
      producer,
      sessionTimeoutMs: minMs - 500,
      logger: recordingLogger(),
      handler: async (envelope) => void seen.push(envelope.sequence),
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await producer.send({ topic, messages: [{ key: 'thing_1', value: JSON.stringify(thingHappened('thing_1', 1)) }] });
    await waitFor(() => seen.length === 1, 20_000, 'the event handled');
    expect(consumer.failure).toBeUndefined();
  });
});
