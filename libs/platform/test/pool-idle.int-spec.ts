import { loadConfig, ServiceConfig } from '@payments/config';
import { createTestDatabase, type TestDatabase } from '@payments/testing';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/database.module';

// A quiet spell must not empty the pool: the first payments after it would each pay for a new backend, its caches
// and its statements' first plans, all at once.
describe('the service pool over a quiet spell', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('pool_idle');
  });

  afterAll(async () => {
    await Promise.all(sources.filter((s) => s.isInitialized).map((s) => s.destroy()));
    await db.drop();
  });

  async function pool(env: Record<string, string> = {}): Promise<DataSource> {
    const source = new DataSource(dataSourceOptions(loadConfig(ServiceConfig, { DATABASE_URL: db.url, DB_SCHEMA: 'public', ...env }), {}));
    sources.push(source);
    return source.initialize();
  }

  /** The backends of four statements at once (each holds its connection a moment, so the pool opens four). */
  async function fourBackends(source: DataSource): Promise<number[]> {
    const rows = await Promise.all(Array.from({ length: 4 }, () => source.query('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)') as Promise<Array<{ pid: number }>>));
    return rows.map(([row]) => row!.pid).sort((a, b) => a - b);
  }

  async function alive(pids: number[]): Promise<number> {
    const [row] = (await sources[0]!.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids])) as Array<{ n: number }>;
    return row!.n;
  }

  it('keeps its connections through a quiet spell longer than any idle limit a pool has by default', async () => {
    const source = await pool();
    const before = await fourBackends(source);
    expect(new Set(before).size).toBe(4);
    // pg-pool's own default closes an idle connection after 10 s.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(await fourBackends(source)).toEqual(before);
  }, 30_000);

  it('closes idle connections after DB_POOL_IDLE_TIMEOUT_MS when one is set', async () => {
    const source = await pool({ DB_POOL_IDLE_TIMEOUT_MS: '300' });
    const opened = await fourBackends(source);
    expect(await alive(opened)).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await alive(opened)).toBe(0);
  }, 30_000);
});
