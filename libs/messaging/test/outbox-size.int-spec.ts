import type { EventEnvelope } from '@payments/events';
import { collectMessages, testKafka, uniqueTopic, waitFor } from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { ensureTopics, MESSAGING_MIGRATIONS, OutboxRelay, OutboxWriter } from '../src';
import { Cleanup, connectProducer, createDatabase, recordingLogger, thingHappened } from './support/fixtures';

// The broker refuses a record batch over its `message.max.bytes` (1 MiB by default; the local brokers keep the
// default) with an error that is not retried, and kafkajs puts one partition's messages of a send in one batch. A
// relay that sends rows by count alone sends a backlog of large events as one refused batch, again and again.
describe('outbox relay: batches within the broker size limit, and rows too large for it parked', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('outboxsize', cleanup);
    db = await database.dataSource('svc', MESSAGING_MIGRATIONS);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  /** 16 values of 500 characters under keys of up to 40: what a merchant may put in `metadata`, about 8 KB. */
  const metadata = (n: number) => Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`key_${i}`, `${n}:${i}:`.padEnd(500, 'm')]));

  const write = (topic: string, envelopes: EventEnvelope[]) => db.transaction((manager) => new OutboxWriter().append(manager, topic, envelopes));

  const startRelay = (options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) => {
    const relay = new OutboxRelay({ dataSource: db, producer, schema: 'svc', pollIntervalMs: 50, retry: { initialMs: 20, maxMs: 200 }, ...options });
    cleanup.add(() => relay.stop());
    relay.start();
    return relay;
  };

  const count = async (table: string) => ((await db.query(`SELECT count(*)::int AS n FROM svc.${table}`)) as [{ n: number }])[0].n;

  it('delivers a backlog of 300 events with 8 KB metadata each, all on one partition, in order', async () => {
    const topic = uniqueTopic('outbox-size');
    await ensureTopics(kafka, [topic]);
    // Written while nothing relays (as while the broker is down): 2.5 MB waiting for one partition.
    const envelopes = Array.from({ length: 300 }, (_, i) => thingHappened('thing_large', i + 1, { metadata: metadata(i + 1) }));
    await write(topic, envelopes);

    const relay = startRelay();
    const received = await collectMessages(topic, 300, 60_000, kafka);
    expect(received.map((m) => (JSON.parse(m.value!) as EventEnvelope).sequence)).toEqual(envelopes.map((e) => e.sequence));
    await waitFor(async () => (await count('outbox')) === 0, 10_000, 'the sent rows to be deleted');
    expect(relay.stats()).toMatchObject({ published: 300, parked: 0 });
    await relay.stop();
  });

  it('parks a row larger than a batch may be, with the reason, and sends the rows around it in order', async () => {
    const topic = uniqueTopic('outbox-oversize');
    await ensureTopics(kafka, [topic]);
    await write(topic, [thingHappened('thing_mixed', 1)]);
    // An event that could never be sent (its payload alone is over the broker's limit), between two that can.
    const payload = JSON.stringify({ padding: 'x'.repeat(1_100_000) });
    const [big] = (await db.query(
      `INSERT INTO svc.outbox (event_id, topic, key, payload, headers) VALUES ('evt_too_large', $1, 'thing_mixed', $2, '{}') RETURNING id::text`,
      [topic, payload],
    )) as Array<{ id: string }>;
    await write(topic, [thingHappened('thing_mixed', 3)]);

    const logger = recordingLogger();
    const relay = startRelay({ logger });
    const received = await collectMessages(topic, 2, 30_000, kafka);
    expect(received.map((m) => (JSON.parse(m.value!) as EventEnvelope).sequence)).toEqual([1, 3]);
    await waitFor(async () => (await count('outbox')) === 0, 10_000, 'the outbox to empty');

    // Kept whole where an operator can see it (and send it again once the limit allows).
    const parked = (await db.query('SELECT id::text, event_id, topic, key, octet_length(payload) AS bytes, reason FROM svc.outbox_parked')) as Array<
      Record<string, unknown>
    >;
    expect(parked).toEqual([
      { id: big!.id, event_id: 'evt_too_large', topic, key: 'thing_mixed', bytes: payload.length, reason: expect.stringMatching(/larger than .* 1000000 bytes/) },
    ]);
    const line = logger.entries.find((e) => e.level === 'error' && e.message.includes('parked'));
    expect(line?.context).toMatchObject({ schema: 'svc', outboxId: big!.id, eventId: 'evt_too_large', topic });
    expect(relay.stats()).toMatchObject({ published: 2, parked: 1 });
    await relay.stop();
  });

  it('sends smaller batches when the broker refuses one as too large, and parks a row it refuses alone', async () => {
    // A topic whose own limit is below the relay's: the broker is the judge of what fits.
    const topic = uniqueTopic('outbox-topic-limit');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '40000' }] }] });
    await admin.disconnect();

    const small = (n: number) => thingHappened('thing_limited', n, { metadata: metadata(n) });
    await write(topic, [1, 2, 3, 4, 5, 6].map(small));
    // 90 values of 500 characters: past the topic's 40,000 bytes alone, refused by the broker whatever the batch.
    const large = thingHappened('thing_limited', 7, { metadata: Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`k${i}`, 'h'.repeat(500)])) });
    await write(topic, [large, small(8), small(9)]);

    const logger = recordingLogger();
    const relay = startRelay({ logger });
    const received = await collectMessages(topic, 8, 60_000, kafka);
    expect(received.map((m) => (JSON.parse(m.value!) as EventEnvelope).sequence)).toEqual([1, 2, 3, 4, 5, 6, 8, 9]);
    await waitFor(async () => (await count('outbox')) === 0, 10_000, 'the outbox to empty');
    const parked = (await db.query('SELECT event_id, reason FROM svc.outbox_parked WHERE topic = $1', [topic])) as Array<{ event_id: string; reason: string }>;
    expect(parked).toEqual([{ event_id: large.id, reason: expect.stringMatching(/refused by the broker/) }]);
    expect(relay.stats().parked).toBe(1);
    await relay.stop();
  });
});
