import { testKafka, uniqueName, uniqueTopic, waitFor } from '@payments/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { ensureTopics, EventConsumer, InboxPruningIndex1763856000000, MESSAGING_MIGRATIONS } from '../src';
import { inboxPruneSql } from '../src/inbox.store';
import { Cleanup, connectProducer, createDatabase, recordingLogger } from './support/fixtures';

describe('inbox pruning', () => {
  const cleanup = new Cleanup();
  const kafka = testKafka();
  let db: DataSource;
  let producer: Producer;

  beforeAll(async () => {
    const database = await createDatabase('inbox_pruning', cleanup);
    db = await database.dataSource('svc', MESSAGING_MIGRATIONS);
    producer = await connectProducer(kafka, cleanup);
  });

  afterAll(() => cleanup.run());

  /** Inbox rows of `consumer` handled `daysAgo` days ago. */
  const handled = (consumer: string, daysAgo: number, ...eventIds: string[]) =>
    db.query(
      `INSERT INTO svc.inbox (consumer, event_id, handled_at)
       SELECT $1, unnest($2::text[]), now() - $3::float8 * interval '1 day'`,
      [consumer, eventIds, daysAgo],
    );
  const left = async (consumer: string) =>
    ((await db.query('SELECT event_id FROM svc.inbox WHERE consumer = $1 ORDER BY event_id', [consumer])) as Array<{
      event_id: string;
    }>).map((row) => row.event_id);

  it('deletes, every interval, only its own rows older than the retention (14 days by default)', async () => {
    await handled('pruned', 30, 'evt_old_1', 'evt_old_2');
    await handled('pruned', 15, 'evt_old_3');
    await handled('pruned', 13, 'evt_recent_1');
    await handled('pruned', 0, 'evt_recent_2');
    await handled('neighbour', 30, 'evt_theirs');

    const topic = uniqueTopic('inbox_pruning');
    await ensureTopics(kafka, [topic]);
    const logger = recordingLogger();
    const consumer = new EventConsumer({
      kafka,
      groupId: uniqueName('inbox_pruning'),
      topics: [topic],
      dataSource: db,
      consumerName: 'pruned',
      producer,
      handler: async () => undefined,
      prune: { intervalMs: 100 },
      logger,
    });
    cleanup.add(() => consumer.stop());
    await consumer.start();
    await waitFor(async () => (await left('pruned')).length === 2, 20_000, 'the old inbox rows to be pruned');
    await consumer.stop();

    expect(await left('pruned')).toEqual(['evt_recent_1', 'evt_recent_2']);
    expect(await left('neighbour')).toEqual(['evt_theirs']);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'pruned old inbox rows', context: { consumer: 'pruned', deleted: 3 } }),
    );

    // On demand, with a shorter retention.
    expect(await consumer.pruneInbox(1)).toBe(1);
    expect(await left('pruned')).toEqual(['evt_recent_2']);
    await expect(consumer.pruneInbox(0)).rejects.toThrow(/positive/);
  });

  it('deletes in chunks through the (consumer, handled_at) index, never scanning the inbox', async () => {
    // Many rows of another consumer, so the planner's choice is the one a real inbox gets.
    await db.query(
      `INSERT INTO svc.inbox (consumer, event_id) SELECT 'busy', 'evt_busy_' || g FROM generate_series(1, 20000) AS g`,
    );
    await handled('chunked', 20, ...Array.from({ length: 5001 }, (_, i) => `evt_chunked_${i}`));
    await db.query('ANALYZE svc.inbox');

    const plan = ((await db.query(`EXPLAIN ${inboxPruneSql('"svc"."inbox"')}`, ['chunked', 14])) as Array<{
      'QUERY PLAN': string;
    }>)
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index Scan (using|on) inbox_handled_at_idx/);
    expect(plan).not.toMatch(/Seq Scan/);

    const consumer = new EventConsumer({
      kafka,
      groupId: uniqueName('inbox_chunks'),
      topics: [uniqueTopic('unused')],
      dataSource: db,
      consumerName: 'chunked',
      producer,
      handler: async () => undefined,
    });
    // 5000 per statement: two statements for 5001 rows.
    expect(await consumer.pruneInbox()).toBe(5001);
    expect(await left('chunked')).toEqual([]);
  });

  it('migrates the index down and up again', async () => {
    const runner = db.createQueryRunner();
    const indexdef = async () => {
      const rows = (await runner.query(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'svc' AND indexname = 'inbox_handled_at_idx'",
      )) as Array<{ indexdef: string }>;
      return rows[0]?.indexdef;
    };
    try {
      expect(await indexdef()).toMatch(/\(consumer, handled_at\)/);
      await new InboxPruningIndex1763856000000().down(runner);
      expect(await indexdef()).toBeUndefined();
      await new InboxPruningIndex1763856000000().up(runner);
      expect(await indexdef()).toMatch(/\(consumer, handled_at\)/);
    } finally {
      await runner.release();
    }
  });
});
