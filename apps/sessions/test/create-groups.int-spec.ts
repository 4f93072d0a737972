import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { createHarness, intentCommand, SCHEMA, testMerchant, type SessionsHarness } from './support/sessions-harness';

// Creates that arrive together are written as one statement. After a stall everything queued meanwhile arrived
// together: past ~2,000 creates one statement needs more than the 65,535 bind parameters Postgres takes, fails, and
// each of its creates is written again on its own, all at once, while the next group builds up behind them.
describe('grouped creates stay within what one statement can carry', () => {
  let h: SessionsHarness;
  const { merchant } = testMerchant();

  beforeAll(async () => {
    h = await createHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('2,100 creates released at once after a 3 s table lock all succeed, in groups, none written again alone', async () => {
    // Every statement the store sends and every one Postgres refused (the real pool; only watched).
    const pool = (h.dataSource.driver as PostgresDriver).master as Pool;
    const query = pool.query.bind(pool) as (config: { name?: string; text: string; values?: unknown[] }) => Promise<unknown>;
    const refused: string[] = [];
    let creates = 0;
    pool.query = ((config: { name?: string; text: string; values?: unknown[] }) => {
      const isCreate = typeof config === 'object' && config.text.includes('idempotency_keys') && config.text.includes('payment_intents');
      if (isCreate) creates += 1;
      const result = query(config);
      if (isCreate) result.catch((error: Error) => refused.push(error.message));
      return result;
    }) as unknown as Pool['query'];

    // A SHARE lock lets reads through and holds every insert into the table until it is released.
    const locker = h.dataSource.createQueryRunner();
    await locker.connect();
    await locker.startTransaction();
    await locker.query(`LOCK TABLE "${SCHEMA}".payment_intents IN SHARE MODE`);
    const results = Promise.allSettled(Array.from({ length: 2100 }, (_, i) => h.intents.create(intentCommand(merchant), `req_group_${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await locker.commitTransaction();
    await locker.release();

    const settled = await results;
    const failed = settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    expect(failed).toEqual([]);
    expect(await h.count('payment_intents', 'merchant_id = $1', [merchant])).toBe(2100);
    // No group failed, so no create went again on its own: far fewer statements than creates.
    expect(refused).toEqual([]);
    expect(creates).toBeLessThan(2100 / 10);
  });
});
