import { executePrepared } from '@payments/database';
import { createTestDatabase, uniqueName, type TestDatabase } from '@payments/testing';
import pino from 'pino';
import { Writable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { logOptions } from '../src/logging/log-options';

// Database errors carry their SQL text, bound parameters and Postgres' detail ("Key (…)=(…) already exists"),
// and pino's error serializer logged all of it: customers' e-mail and phone, metadata, idempotency keys.
describe('a failing statement logged by a service shows neither its SQL nor its parameters', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const table = uniqueName('redaction');

  beforeAll(async () => {
    db = await createTestDatabase('log_redaction');
    dataSource = await db.dataSource('public');
    await dataSource.query(`CREATE TABLE ${table} (email text UNIQUE, phone text)`);
  });

  afterAll(async () => {
    await db?.drop();
  });

  function serviceLogger(): { logger: pino.Logger; output: () => string } {
    let out = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    return { logger: pino(logOptions('test', 'info'), stream), output: () => out };
  }

  /** The error a statement fails with (the test fails if it does not). */
  function failure(statement: () => Promise<unknown>): Promise<unknown> {
    return statement().then(
      () => Promise.reject(new Error('expected the statement to fail')),
      (error: unknown) => error,
    );
  }

  it('a unique violation (its detail names the values) and a statement on a missing table', async () => {
    const email = `pii-${uniqueName('mail')}@example.com`;
    const phone = `+970599${Date.now() % 1000000}`;
    const insert = { text: `INSERT INTO ${table} (email, phone) VALUES ($1, $2)`, params: [email, phone] };
    await executePrepared(dataSource, insert);
    const duplicate = await failure(() => executePrepared(dataSource, insert));
    const missing = await failure(() => dataSource.query(`INSERT INTO nowhere_${table} (email) VALUES ($1)`, [email]));
    const { logger, output } = serviceLogger();
    logger.error({ err: duplicate }, 'write failed');
    logger.error({ err: missing }, 'write failed');
    logger.error({ err: new Error('command failed', { cause: duplicate }) }, 'command failed');
    const text = output();
    // Each line still says what went wrong.
    expect(text).toContain('duplicate key value violates unique constraint');
    expect(text).toContain('does not exist');
    for (const leaked of [email, phone, 'INSERT INTO', 'VALUES']) expect(text).not.toContain(leaked);
  });
});
