import { STREAMS, topicName } from '@payments/events';
import { createKafka } from '@payments/messaging';
import {
  createTestDatabase,
  freePort,
  PrivateKafka,
  startService,
  topicMessages,
  uniqueName,
  waitFor,
  type RunningService,
  type TestDatabase,
} from '@payments/testing';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { createHarness, intentCommand, testMerchant, type SessionsHarness } from './support/sessions-harness';

// Events written while the broker is down wait in the outbox and go out together once it is back. With the largest
// metadata a merchant may send, a batch of them is past the broker's 1 MiB limit (message.max.bytes, left at its
// default here), which it refuses for good: sent by count alone they never went, and no later event either.
describe('sessions: a backlog of large events written while Kafka is down is delivered once it returns', () => {
  const namespace = uniqueName('ses');
  const { merchant } = testMerchant();
  let broker: PrivateKafka;
  let db: TestDatabase;
  let service: RunningService | undefined;
  let client: SessionsCommandClient | undefined;
  let h: SessionsHarness;

  beforeAll(async () => {
    broker = new PrivateKafka(await freePort(), await freePort());
    await broker.start();
    db = await createTestDatabase('sessions_large');
    service = await startService('sessions', {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: broker.brokers,
      KAFKA_NAMESPACE: namespace,
      PUBLIC_BASE_URL: 'https://pay.example.test',
      PORT: String(await freePort()),
    });
    client = connectSessionsCommandClient([service]);
    h = await createHarness({ db, namespace });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    if (service && service.process.signalCode === null) await service.stop();
    await h?.close();
    await db?.drop();
    await broker?.destroy();
  }, 120_000);

  /** `keys` values of 500 characters, the most a metadata value may have. */
  const metadata = (n: number, keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`note_${i}`, `${n}/${i} `.padEnd(500, 'm')]));

  /** Creates 300 intents with the broker down, brings it back, and answers what reached the topic. */
  const createWhileDown = async (metadata: (n: number) => Record<string, string>) => {
    await broker.stop();
    const ids: string[] = [];
    for (let start = 0; start < 300; start += 50) {
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) => client!.request('payment-intents.create', intentCommand(merchant, {}, { metadata: metadata(start + i) }))),
      );
      ids.push(...created.map((intent) => intent.id));
    }
    const [{ bytes }] = (await h.dataSource.query(
      `SELECT min(octet_length(payload))::int AS bytes FROM "sessions".outbox WHERE key = ANY($1)`,
      [ids],
    )) as [{ bytes: number }];

    await broker.start();
    await waitFor(async () => (await h.count('outbox')) === 0, 90_000, 'the outbox to drain', 500);
    const kafka = createKafka({ brokers: [broker.brokers], clientId: uniqueName('large') });
    const messages = await topicMessages(topicName(namespace, STREAMS.sessions), kafka, 60_000);
    const created = messages
      .map((m) => JSON.parse(m.value!) as { type: string; aggregate_id: string })
      .filter((e) => e.type === 'payment_intent.created' && ids.includes(e.aggregate_id));
    return { ids, bytes, delivered: created.map((e) => e.aggregate_id) };
  };

  it('300 intents with 8 KB metadata each, created with the broker down, all reach the topic after it returns', async () => {
    // 16 values: about 8 KB. The topic's 3 partitions take ~100
    // events of ~9 KB each, under 1 MiB a partition: sent by count alone, these went too.
    const { ids, bytes, delivered } = await createWhileDown((n) => metadata(n, 16));
    expect(bytes).toBeGreaterThan(8_000);
    expect(delivered.sort()).toEqual([...ids].sort());
    expect(await h.count('outbox_parked')).toBe(0);
  }, 240_000);

  it('300 intents with the most metadata allowed (50 values of 500 characters), created with the broker down, all reach the topic', async () => {
    // ~26 KB an event: ~2.6 MB a partition, which the broker refused as one batch, for ever.
    const { ids, bytes, delivered } = await createWhileDown((n) => metadata(n, 50));
    expect(bytes).toBeGreaterThan(25_000);
    expect(delivered.sort()).toEqual([...ids].sort());
    expect(await h.count('outbox_parked')).toBe(0);
  }, 240_000);
});
