import { logLevel } from 'kafkajs';
import { TEST_KAFKA_BROKERS, testKafka, uniqueName, uniqueTopic } from '@payments/testing';
import { ensureTopics } from '../src';
import { Cleanup, connectProducer } from './support/fixtures';

// kafkajs 2.2.4 re-armed a timer with a negative delay (fired after 1 ms) on every broker connection whenever no
// request was waiting, so each idle connection woke its process a thousand times a second (kafkajs issues #1556,
// #1704); five services with a few connections each spent ~0.08 of a core doing nothing. patches/ stops it.
describe('an idle broker connection', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();

  afterAll(() => cleanup.run());

  it('arms no timer while nothing waits to be sent', async () => {
    const topic = uniqueTopic('idle');
    await ensureTopics(kafka, [topic]);
    const producer = await connectProducer(kafka, cleanup);
    await producer.send({ topic, messages: [{ key: 'k', value: 'v' }] });

    const delays: number[] = [];
    const original = global.setTimeout;
    const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return original(callback, ms);
    }) as typeof setTimeout);
    try {
      await new Promise((resolve) => original(resolve, 500));
    } finally {
      spy.mockRestore();
    }
    // Before the fix: hundreds of setTimeout(…, negative) in these 500 ms.
    expect(delays.filter((ms) => ms <= 1)).toEqual([]);
  });

  it('checks requests for timeouts once a second, on one timer for every connection of the process', async () => {
    const topic = uniqueTopic('idle');
    await ensureTopics(kafka, [topic]);
    // A fresh copy of kafkajs, so no connection of this file's other tests has armed the timer already.
    let FreshKafka!: typeof import('kafkajs').Kafka;
    jest.isolateModules(() => {
      FreshKafka = (require('kafkajs') as typeof import('kafkajs')).Kafka;
    });
    const delays: number[] = [];
    const original = global.setInterval;
    const spy = jest.spyOn(global, 'setInterval').mockImplementation(((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return original(callback, ms);
    }) as typeof setInterval);
    try {
      const fresh = new FreshKafka({ brokers: TEST_KAFKA_BROKERS, clientId: uniqueName('fresh'), logLevel: logLevel.ERROR });
      // Three clients, each with its own broker connections (the seed's and the broker's).
      for (let i = 0; i < 3; i++) {
        const producer = fresh.producer();
        await producer.connect();
        cleanup.add(() => producer.disconnect());
        await producer.send({ topic, messages: [{ value: 'v' }] });
      }
    } finally {
      spy.mockRestore();
    }
    // kafkajs checked every min(requestTimeout, 100) ms, on a timer of its own for every connection.
    expect(delays).toEqual([1000]);
  });
});
