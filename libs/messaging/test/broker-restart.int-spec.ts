import { deadLetterTopic } from '@payments/events';
import { freePort, HangingUpProxy, PrivateKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import { KafkaJSError, type Consumer, type Kafka, type Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { createKafka, ensureTopics, EventConsumer, MESSAGING_MIGRATIONS } from '../src';
import { Cleanup, connectProducer, createDatabase, CreateEffects1763769700001, recordingLogger, thingHappened } from './support/fixtures';

// A broker restart must not end a consumer: kafkajs gives up for good when no broker can name the group's
// coordinator (kafkajs issues #1445 and #1630), and a consumer that rejoins under a new member id waits for the old
// id's session to time out first. Both are patched (patches/kafkajs+*.patch); this runs a broker of its own.
describe('consumers through a broker restart', () => {
  const cleanup = new Cleanup();
  let broker: PrivateKafka;
  let proxy: HangingUpProxy;
  let kafka: Kafka;
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    // Clients reach the broker through a proxy that can hang up on them (advertised as the broker's address).
    const [port, controllerPort, proxyPort] = [await freePort(), await freePort(), await freePort()];
    proxy = new HangingUpProxy(port);
    await proxy.listen(proxyPort);
    broker = new PrivateKafka(port, controllerPort, proxyPort);
    cleanup.add(() => broker.destroy());
    cleanup.add(() => proxy.close());
    await broker.start();
    kafka = createKafka({ brokers: [broker.brokers], clientId: uniqueName('restart'), logger: recordingLogger() });
    const database = await createDatabase('restart', cleanup);
    db = await database.dataSource('reader', [...MESSAGING_MIGRATIONS, CreateEffects1763769700001]);
    producer = await connectProducer(kafka, cleanup);
  }, 120_000);

  afterAll(() => cleanup.run(), 60_000);

  const effectsOf = async (key: string) =>
    ((await db.query('SELECT sequence FROM reader.effects WHERE aggregate_id = $1 ORDER BY sequence', [key])) as Array<{ sequence: number }>).map(
      (r) => r.sequence,
    );

  const memberIds = async (groupIds: string[]) => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups(groupIds);
      return groups.map((g) => g.members.map((m) => m.memberId));
    } finally {
      await admin.disconnect();
    }
  };

  it('keeps consuming after the broker comes back, as the same group members, without giving up', async () => {
    const names = ['idle', 'busy'];
    const topics = names.map((name) => uniqueTopic(`restart-${name}`));
    const groupIds = names.map((name) => uniqueName(`restart-${name}`));
    await ensureTopics(kafka, [...topics, ...topics.map(deadLetterTopic)]);
    const fatal: Error[] = [];
    const consumers = names.map(
      (name, i) =>
        new EventConsumer({
          kafka,
          groupId: groupIds[i]!,
          topics: [topics[i]!],
          dataSource: db,
          consumerName: `restart-${name}`,
          producer,
          handler: async (envelope, manager) => {
            await manager.query('INSERT INTO reader.effects (event_id, aggregate_id, sequence) VALUES ($1, $2, $3)', [
              envelope.id,
              envelope.aggregate_id,
              envelope.sequence,
            ]);
          },
          logger: recordingLogger(),
          onFatal: (error) => fatal.push(error),
        }),
    );
    for (const consumer of consumers) {
      cleanup.add(() => consumer.stop());
      await consumer.start();
    }
    const send = (i: number, sequence: number) =>
      producer.send({ topic: topics[i]!, acks: -1, messages: [{ key: names[i]!, value: JSON.stringify(thingHappened(names[i]!, sequence)) }] });
    await Promise.all(names.map((_, i) => send(i, 1)));
    await waitFor(async () => (await Promise.all(names.map(effectsOf))).every((e) => e.length === 1), 30_000, 'the first events');
    const before = await memberIds(groupIds);
    expect(before.map((m) => m.length)).toEqual([1, 1]);

    // The busy consumer's topic gets events throughout; the idle one's only after the restart.
    let sequence = 2;
    let sending = true;
    const trickle = (async () => {
      while (sending) {
        await send(1, sequence++).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await broker.stop();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await broker.start();
    // The test's own producer may meet the broker before its connections are back ("Broker not connected"): it
    // sends again, the same event (an outbox relay retries the same way), so a send that did land is not doubled.
    const afterRestart = JSON.stringify(thingHappened(names[0]!, 2));
    await waitFor(
      () => producer.send({ topic: topics[0]!, acks: -1, messages: [{ key: names[0]!, value: afterRestart }] }).then(() => true, () => false),
      30_000,
      'a send after the restart',
    );
    await waitFor(async () => (await effectsOf('idle')).length === 2, 60_000, 'the idle consumer to take an event sent after the restart');
    const sentAfter = sequence;
    await waitFor(async () => (await effectsOf('busy')).includes(sentAfter), 60_000, 'the busy consumer to take events sent after the restart');
    sending = false;
    await trickle;

    expect(fatal).toEqual([]);
    expect(consumers.map((c) => c.failure)).toEqual([undefined, undefined]);
    // The same members: no join waited for a vanished member's session to end.
    expect(await memberIds(groupIds)).toEqual(before);
    // Nothing handled twice (the inbox) and nothing skipped on the idle topic.
    expect(await effectsOf('idle')).toEqual([1, 2]);
    const busy = await effectsOf('busy');
    expect(new Set(busy).size).toBe(busy.length);
  }, 180_000);

  // The two library cases on their own, on kafkajs consumers made with the services' client settings, at the
  // moments that trigger them (in a running system they come when the outage meets a heartbeat or a fetch).
  describe('kafkajs, as patched', () => {
    const joins = (consumer: Consumer) => {
      const ids: string[] = [];
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => void ids.push(payload.memberId));
      return ids;
    };
    const crashes = (consumer: Consumer) => {
      const seen: Array<{ name: string; restart: boolean }> = [];
      consumer.on(consumer.events.CRASH, ({ payload }) => void seen.push({ name: payload.error.name, restart: payload.restart }));
      return seen;
    };

    it('a consumer whose broker hangs up while it joins waits for the broker instead of stopping for good', async () => {
      const topic = uniqueTopic('restart-join');
      await ensureTopics(kafka, [topic]);
      const consumer = kafka.consumer({ groupId: uniqueName('restart-join'), sessionTimeout: 6000, heartbeatInterval: 1000, maxWaitTimeInMs: 500 });
      cleanup.add(() => consumer.disconnect());
      const joined = joins(consumer);
      const crashed = crashes(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      proxy.hangUp();
      const seen: string[] = [];
      // Unpatched, finding the coordinator fails at once with a non-retriable error and the consumer never restarts.
      const running = consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      proxy.resume();
      await running;
      await producer.send({ topic, acks: -1, messages: [{ value: 'after' }] });
      await waitFor(() => seen.includes('after'), 30_000, 'the consumer to take an event');
      expect(joined).toHaveLength(1);
      expect(crashed.filter((c) => !c.restart)).toEqual([]);
    }, 120_000);

    it('a consumer restarted after a crash during an outage rejoins as the member the broker knows', async () => {
      const topic = uniqueTopic('restart-member');
      await ensureTopics(kafka, [topic]);
      const consumer = kafka.consumer({
        groupId: uniqueName('restart-member'),
        sessionTimeout: 6000,
        heartbeatInterval: 1000,
        maxWaitTimeInMs: 500,
        retry: { retries: 0, initialRetryTime: 200 },
      });
      cleanup.add(() => consumer.disconnect());
      const joined = joins(consumer);
      const crashed = crashes(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const seen: string[] = [];
      await consumer.run({
        eachMessage: async ({ message }) => {
          const value = String(message.value);
          if (value === 'crash' && !seen.includes(value)) {
            seen.push(value);
            // The broker goes away while this message is handled, then the handler fails: a retriable crash
            // whose leave-group cannot reach the broker, so the broker still holds the member.
            await broker.stop();
            throw new KafkaJSError('handler failed during the outage', { retriable: true });
          }
          seen.push(value);
        },
      });
      await waitFor(() => joined.length === 1, 30_000, 'the first join');
      await producer.send({ topic, acks: -1, messages: [{ value: 'crash' }] });
      await waitFor(() => crashed.length > 0, 60_000, 'the crash');
      await broker.start();
      await producer.send({ topic, acks: -1, messages: [{ value: 'after' }] });
      await waitFor(() => seen.includes('after'), 60_000, 'the restarted consumer to take an event');
      expect(crashed[0]).toMatchObject({ restart: true });
      // Unpatched, the restart joins under a new id and the broker holds that join until the old id's session ends.
      expect(joined.length).toBeGreaterThanOrEqual(2);
      expect(new Set(joined).size).toBe(1);
    }, 120_000);
  });
});
