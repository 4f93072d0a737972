import { deadLetterTopic, type EventEnvelope } from '@payments/events';
import { createProducer, ensureTopics, EventConsumer, EventRefused, MESSAGING_MIGRATIONS, type EventConsumerOptions } from '../src';
import { collectMessages, groupLag, testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Message, Producer } from 'kafkajs';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { Cleanup, connectProducer, createDatabase, CreateEffects1763769700001, recordingLogger, thingHappened } from './support/fixtures';

const KEY = 'thing_poisoned';

describe('poison messages go to the dead-letter topic and do not block the partition', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('poison', cleanup);
    db = await database.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  const effects = async () =>
    ((await db.query('SELECT sequence FROM reader.effects ORDER BY id')) as Array<{ sequence: number }>).map((r) => r.sequence);

  /** Handler whose effect is a row, and which always fails for events flagged as poison. */
  const handlerCalls: string[] = [];
  const handler: EventConsumerOptions['handler'] = async (envelope, manager) => {
    handlerCalls.push(envelope.id);
    if ((envelope.data as { poison?: boolean }).poison) throw new Error('cannot apply a poisoned thing');
    await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [
      envelope.id,
      envelope.aggregate_id,
      envelope.sequence,
    ]);
  };

  const message = (value: string | EventEnvelope): Message => ({
    key: KEY,
    value: typeof value === 'string' ? value : JSON.stringify(value),
  });

  it('parks a failing event after its retries and an invalid one at once, with reasons, and handles the rest', async () => {
    const topic = uniqueTopic('poison');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const poison = thingHappened(KEY, 1, { poison: true });
    const { merchant_id: _missing, ...invalid } = thingHappened(KEY, 3);
    // One key, so all of them sit on one partition behind the poison.
    await producer.send({
      topic,
      acks: -1,
      messages: [
        message(poison),
        message(thingHappened(KEY, 2)),
        message(JSON.stringify(invalid)),
        message(thingHappened(KEY, 4)),
        message('{not json'),
        message(thingHappened(KEY, 5)),
      ],
    });

    const logger = recordingLogger();
    const groupId = uniqueName('poison');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'poison',
      producer,
      handler,
      retry: { attempts: 3, initialMs: 5, maxMs: 20 },
      logger,
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();

    expect(await effects()).toEqual([2, 4, 5]);
    expect(handlerCalls.filter((id) => id === poison.id)).toHaveLength(3);
    expect(consumer.stats()).toMatchObject({ handled: 3, deadLettered: 3, failedAttempts: 3 });
    // Nothing recorded the poison as handled: a fixed handler replaying the dead letter can still apply it.
    expect(await db.query('SELECT 1 FROM reader.inbox WHERE event_id = $1', [poison.id])).toHaveLength(0);

    const parked = await collectMessages(deadLetterTopic(topic), 3, 20_000, kafka);
    parked.sort((a, b) => Number(a.offset) - Number(b.offset));
    const [failed, badEnvelope, badJson] = parked;
    expect(failed!.key).toBe(KEY);
    expect(failed!.value).toBe(JSON.stringify(poison));
    expect(failed!.headers).toMatchObject({
      'dlq-reason': 'cannot apply a poisoned thing',
      'dlq-original-topic': topic,
      'dlq-original-offset': '0',
      'dlq-attempts': '3',
    });
    expect(failed!.headers['dlq-original-partition']).toMatch(/^\d$/);
    expect(new Date(failed!.headers['dlq-failed-at']!).getTime()).not.toBeNaN();
    expect(badEnvelope!.headers['dlq-reason']).toMatch(/^invalid envelope: .*must have required property 'merchant_id'/);
    expect(badEnvelope!.headers).toMatchObject({ 'dlq-original-offset': '2', 'dlq-attempts': '0' });
    expect(badJson!.headers['dlq-reason']).toMatch(/^invalid envelope: .*JSON/);
    expect(badJson!.value).toBe('{not json');

    // Every failure is in the log with the event id.
    const aboutPoison = logger.entries.filter((e) => e.context.eventId === poison.id);
    expect(aboutPoison.map((e) => e.level)).toEqual(['warn', 'warn', 'error']);
    expect(logger.entries.filter((e) => e.level === 'error')).toHaveLength(3);
  });

  it('parks an event its handler refuses at once, without retries, and handles the rest', async () => {
    const topic = uniqueTopic('refused');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const refused = thingHappened(KEY, 1, { poison: true });
    await producer.send({ topic, acks: -1, messages: [message(refused), message(thingHappened(KEY, 2))] });
    const calls: string[] = [];
    const groupId = uniqueName('refused');
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'refused',
      producer,
      handler: async (envelope, manager, ctx) => {
        calls.push(envelope.id);
        if ((envelope.data as { poison?: boolean }).poison) throw new EventRefused('amounts disagree');
        await handler(envelope, manager, ctx);
      },
      retry: { attempts: 5, initialMs: 5, maxMs: 20 },
      logger: recordingLogger(),
    });
    cleanup.add(() => consumer.stop());
    const before = await effects();
    await consumer.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to pass every message');
    await consumer.stop();
    // Tried once (in its batch), not five times.
    expect(calls.filter((id) => id === refused.id)).toHaveLength(1);
    expect(await effects()).toEqual([...before, 2]);
    const [parked] = await collectMessages(deadLetterTopic(topic), 1, 20_000, kafka);
    expect(parked!.headers).toMatchObject({ 'dlq-reason': 'amounts disagree', 'dlq-attempts': '1', 'dlq-consumer': 'refused' });
  });

  it('stops instead of skipping when the dead-letter topic cannot be written, and the next instance goes on', async () => {
    const topic = uniqueTopic('poison_stop');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const poison = thingHappened(KEY, 1, { poison: true });
    await producer.send({ topic, acks: -1, messages: [message(poison), message(thingHappened(KEY, 2))] });

    const groupId = uniqueName('poison_stop');
    const options = {
      kafka,
      groupId,
      topics: [topic],
      dataSource: db,
      consumerName: 'poison_stop',
      handler,
      retry: { attempts: 2, initialMs: 5, maxMs: 20 },
      logger: recordingLogger(),
    };
    // A producer that is not connected: dead-lettering fails.
    const broken = createProducer(kafka);
    const fatal: Error[] = [];
    const first = new EventConsumer({ ...options, producer: broken, onFatal: (error) => void fatal.push(error) });
    cleanup.add(() => first.stop());
    const before = await effects();
    await first.start();
    await waitFor(() => fatal.length > 0, 30_000, 'the consumer to stop itself');
    expect(first.failure?.message).toMatch(/disconnected/i);
    expect(first.stats().deadLettered).toBe(0);
    // The event behind the poison was not handled: the consumer stopped instead of moving on.
    expect(await effects()).toEqual(before);
    expect(await groupLag(kafka, groupId, topic)).toBe(2);

    const second = new EventConsumer({ ...options, producer });
    cleanup.add(() => second.stop());
    await second.start();
    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the next instance to go on');
    await second.stop();
    expect(second.stats()).toMatchObject({ handled: 1, deadLettered: 1 });
    expect((await effects()).slice(before.length)).toEqual([2]);
    const [parked] = await collectMessages(deadLetterTopic(topic), 1, 20_000, kafka);
    expect(parked!.headers['dlq-original-offset']).toBe('0');
  });

  it('keeps retrying an event whose statement gave up on a held lock (lock_timeout), and applies it once the lock goes', async () => {
    const topic = uniqueTopic('lock_wait');
    await ensureTopics(kafka, [topic, deadLetterTopic(topic)]);
    const event = thingHappened(KEY, 1);
    await producer.send({ topic, acks: -1, messages: [message(event)] });
    // The services' pools give up on a lock after DB_LOCK_TIMEOUT_MS; here after 100 ms.
    const limited = await new DataSource({ ...db.options, extra: { max: 4, lock_timeout: 100 } } as DataSourceOptions).initialize();
    cleanup.add(() => limited.destroy());
    const before = await effects();
    const holder = db.createQueryRunner();
    await holder.connect();
    cleanup.add(() => holder.release());
    await holder.startTransaction();
    await holder.query('LOCK TABLE reader.effects IN EXCLUSIVE MODE');

    const groupId = uniqueName('lock_wait');
    const logger = recordingLogger();
    const consumer = new EventConsumer({
      kafka,
      groupId,
      topics: [topic],
      dataSource: limited,
      consumerName: 'lock_wait',
      producer,
      handler,
      retry: { attempts: 2, initialMs: 5, maxMs: 200 },
      logger,
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    // Well past its two attempts, the event is still being retried, not parked.
    await waitFor(() => consumer.stats().failedAttempts >= 5, 30_000, 'the handler to time out on the lock five times');
    expect(consumer.stats().deadLettered).toBe(0);
    await holder.commitTransaction();

    await waitFor(async () => (await groupLag(kafka, groupId, topic)) === 0, 30_000, 'the consumer to apply the event');
    await consumer.stop();
    expect(consumer.stats()).toMatchObject({ handled: 1, deadLettered: 0 });
    expect((await effects()).slice(before.length)).toEqual([1]);
    expect(logger.entries.filter((e) => e.level === 'error')).toHaveLength(0);
  });
});
