import { createTestDatabase, type TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { combineStatements, executePrepared } from '../src';

// A hot combined write runs as a named prepared statement: parsed once per connection, atomic as before.
describe('executePrepared', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('prepared');
    db = await database.dataSource('svc');
    await db.query('CREATE TABLE svc.notes (id text PRIMARY KEY, body text NOT NULL)');
  });

  afterAll(() => database.drop());

  const write = (id: string, body: string) =>
    combineStatements([
      { text: 'INSERT INTO svc.notes (id, body) VALUES ($1, $2)', params: [`${id}-a`, body] },
      { text: 'INSERT INTO svc.notes (id, body) VALUES ($1, $2) RETURNING id', params: [id, body] },
    ]);

  it('writes with the given values every time, and prepares the statement on the connection once', async () => {
    for (let i = 0; i < 5; i++) expect(await executePrepared(db, write(`n${i}`, `body ${i}`))).toEqual([{ id: `n${i}` }]);
    expect(await db.query("SELECT id, body FROM svc.notes WHERE id LIKE 'n3%' ORDER BY id")).toEqual([
      { id: 'n3', body: 'body 3' },
      { id: 'n3-a', body: 'body 3' },
    ]);
    // Sequential calls reuse the pool's one idle connection; there the statement is prepared, not re-parsed.
    const prepared = (await db.query("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'p%'")) as Array<{ statement: string }>;
    expect(prepared.map((p) => p.statement)).toEqual([write('x', 'y').text]);
  });

  it('writes nothing of a statement that fails in any part', async () => {
    await expect(executePrepared(db, write('n1', 'again'))).rejects.toMatchObject({ name: 'QueryFailedError', driverError: { code: '23505' } });
    expect(await db.query("SELECT body FROM svc.notes WHERE id = 'n1-a'")).toEqual([{ body: 'body 1' }]);
  });
});
