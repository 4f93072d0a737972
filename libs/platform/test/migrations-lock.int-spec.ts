import { createTestDatabase, TestDatabase } from '@payments/testing';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { runMigrationsLocked } from '../src/database/run-migrations';

class SlowMigration1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE svc.boot_log (id serial primary key, at timestamptz default now())');
    await runner.query('SELECT pg_sleep(0.3)');
    await runner.query('INSERT INTO svc.boot_log DEFAULT VALUES');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE svc.boot_log');
  }
}

// Several instances booting at once on a fresh database migrate exactly once and none fails.
describe('migrations under an advisory lock', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('mig');
  });

  afterAll(async () => {
    await Promise.all(sources.map((s) => s.destroy()));
    await db.drop();
  });

  it('runs each migration once when three instances start together', async () => {
    for (let i = 0; i < 3; i++) {
      sources.push(
        await new DataSource({ type: 'postgres', url: db.url, schema: 'svc', migrations: [SlowMigration1700000000000], migrationsTableName: 'migrations' }).initialize(),
      );
    }
    const ran = await Promise.all(sources.map((s) => runMigrationsLocked(s, 'svc')));
    expect(ran.flat()).toEqual(['SlowMigration1700000000000']);
    const [log] = await sources[0].query('SELECT count(*)::int AS n FROM svc.boot_log');
    expect(log.n).toBe(1);
    const [migrations] = await sources[0].query('SELECT count(*)::int AS n FROM svc.migrations');
    expect(migrations.n).toBe(1);
  });
});
