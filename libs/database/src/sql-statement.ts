import type { Pool, PoolClient } from 'pg';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** One SQL statement with its own `$1..$n` placeholders. */
export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * Several data-modifying statements as one: `WITH s1 AS (…), s2 AS (…) <last>`, placeholders renumbered. Postgres
 * runs every part exactly once, in one snapshot, and a single statement is atomic on its own, so a write that
 * needed BEGIN, n statements and COMMIT (n + 2 round trips, each a socket write and a wake-up on both sides)
 * takes one. If any part fails (e.g. a unique violation), nothing of it is written.
 */
export function combineStatements(statements: readonly SqlStatement[]): SqlStatement {
  if (statements.length === 0) throw new Error('no statements to combine');
  const params: unknown[] = [];
  const parts = statements.map((statement) => {
    const offset = params.length;
    params.push(...statement.params);
    return placeholdersShifted(statement.text, offset);
  });
  const last = parts.pop()!;
  const text = parts.length === 0 ? last : `WITH ${parts.map((part, i) => `s${i + 1} AS (${part})`).join(', ')} ${last}`;
  return { text, params };
}

/** `text` with each `$n` placeholder as `$(n + offset)`: a statement's text placed after `offset` parameters of another's. */
export function placeholdersShifted(text: string, offset: number): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** How many distinct statement texts get a prepared statement per pool; rarer shapes run unnamed. */
const MAX_PREPARED_STATEMENTS = 200;
const preparedNames = new WeakMap<Pool, Map<string, string>>();

/**
 * Runs `statement` on the DataSource's pool as a named prepared statement: each connection parses and plans it
 * once, later calls send only its parameters. For hot writes whose text is the same on every call (a combined
 * statement's parse and plan cost Postgres more than its inserts). Errors are TypeORM's QueryFailedError.
 */
export async function executePrepared(dataSource: DataSource, statement: SqlStatement): Promise<Record<string, unknown>[]> {
  const pool = poolOf(dataSource);
  return run(pool, preparedName(pool, statement.text), statement);
}

/**
 * As executePrepared, on the connection of the transaction `manager` runs in (or the pool when it runs in none):
 * for a hot statement inside a transaction, e.g. a consumer's inbox transaction.
 */
export async function executePreparedIn(manager: EntityManager, statement: SqlStatement): Promise<Record<string, unknown>[]> {
  const pool = poolOf(manager.connection);
  const runner = manager.queryRunner;
  if (!runner || runner.isReleased) return run(pool, preparedName(pool, statement.text), statement);
  // The transaction's own client, from the same pool: a name stands for one text on every connection of it.
  const client = (await runner.connect()) as PoolClient;
  return run(client, preparedName(pool, statement.text), statement);
}

function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

function preparedName(pool: Pool, text: string): string | undefined {
  let names = preparedNames.get(pool);
  if (names === undefined) preparedNames.set(pool, (names = new Map()));
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED_STATEMENTS) names.set(text, (name = `p${names.size + 1}`));
  return name;
}

async function run(on: Pool | PoolClient, name: string | undefined, statement: SqlStatement): Promise<Record<string, unknown>[]> {
  try {
    const result = await on.query({ name, text: statement.text, values: statement.params as unknown[] });
    return result.rows as Record<string, unknown>[];
  } catch (error) {
    // Failures look like the DataSource's own (callers check QueryFailedError's driverError, e.g. for 23505).
    throw new QueryFailedError(statement.text, statement.params as unknown[], error as Error);
  }
}
