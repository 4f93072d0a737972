import { createTestDatabase, TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { analyzeGrownTables } from '../src/database/table-statistics';

// A prepared statement planned while its table held a page keeps that plan as the table grows, until the
// table's statistics change; the services analyze their young tables as they grow so that such plans go.
describe('statistics of growing tables', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('stats');
    dataSource = await db.dataSource('svc');
    await dataSource.query(`CREATE TABLE svc.items (id text PRIMARY KEY, body text NOT NULL)`);
    await dataSource.query(`CREATE TABLE svc.small (id int PRIMARY KEY)`);
  });

  afterAll(async () => {
    await db?.drop();
  });

  const insert = (from: number, to: number) =>
    dataSource.query(`INSERT INTO svc.items SELECT 'item_' || n, repeat('x', 200) FROM generate_series($1::int, $2::int) n`, [from, to]);

  it('analyzes a table grown past its statistics, so a stale generic plan is replaced', async () => {
    await insert(1, 5);
    await dataSource.query('ANALYZE svc.items');
    // One connection, as a pool's: the generic plan is made now, on a one-page table.
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SET plan_cache_mode = force_generic_plan`);
      await runner.query(`PREPARE find(text) AS SELECT body FROM svc.items WHERE id = $1`);
      const plan = async () => ((await runner.query(`EXPLAIN EXECUTE find('item_3')`)) as Array<{ 'QUERY PLAN': string }>)[0]!['QUERY PLAN'];
      expect(await plan()).toMatch(/^Seq Scan on items/);

      await insert(6, 20_000);
      expect(await plan()).toMatch(/^Seq Scan on items/); // still the one-page plan: every call reads 20,000 rows

      expect(await analyzeGrownTables(dataSource, 'svc')).toEqual(['items']);
      expect(await plan()).toMatch(/^Index Scan using items_pkey/);
    } finally {
      await runner.release();
    }

    // Nothing to do until it grows again by the factor; small tables are left to autovacuum.
    await dataSource.query(`INSERT INTO svc.small SELECT generate_series(1, 100)`);
    expect(await analyzeGrownTables(dataSource, 'svc')).toEqual([]);
  });

  it("sizes only its own schema's tables: another service's table, locked by its migration, does not hold it up", async () => {
    await dataSource.query(`CREATE SCHEMA other`);
    await dataSource.query(`CREATE TABLE other.busy (id int PRIMARY KEY)`);
    const migration = dataSource.createQueryRunner();
    await migration.connect();
    try {
      await migration.startTransaction();
      await migration.query(`LOCK TABLE other.busy IN ACCESS EXCLUSIVE MODE`);
      const checked = analyzeGrownTables(dataSource, 'svc').then((tables) => ({ tables }));
      const held = new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), 5000).unref());
      expect(await Promise.race([checked, held])).toEqual({ tables: [] });
    } finally {
      await migration.rollbackTransaction();
      await migration.release();
    }
  });
});
