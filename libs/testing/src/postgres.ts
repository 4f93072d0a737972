import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';

/** Maintenance connection of the machine's Postgres (trust auth); test databases are created next to it. */
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * `<prefix>_<run tag><random lower-case chars>`: safe as a database, schema, topic or group name. The run tag
 * (TEST_RUN_TAG, set once per jest run) lets the run's teardown find every topic it created.
 */
export function uniqueName(prefix = 't'): string {
  const clean = prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `${clean}_${process.env.TEST_RUN_TAG ?? ''}${randomBytes(8).toString('hex').slice(0, 10)}`;
}

type Migrations = NonNullable<DataSourceOptions['migrations']>;

export interface TestDatabase {
  name: string;
  url: string;
  /** An initialized DataSource on `schema` (created if missing) with `migrations` run. Closed by drop(). */
  dataSource(schema: string, migrations?: Migrations): Promise<DataSource>;
  /** Closes every DataSource handed out and drops the database. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: Client) => Promise<T>, url = ADMIN_URL): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database `t_<prefix>_<random>` for one test file. */
export async function createTestDatabase(prefix = 'db'): Promise<TestDatabase> {
  const name = uniqueName(`t_${prefix}`);
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const opened: DataSource[] = [];

  return {
    name,
    url: databaseUrl,
    async dataSource(schema, migrations = []) {
      await admin((client) => client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`), databaseUrl);
      const dataSource = new DataSource({
        type: 'postgres',
        url: databaseUrl,
        schema,
        migrations,
        migrationsTableName: 'migrations',
        synchronize: false,
        migrationsRun: false,
        logging: false,
        applicationName: `test:${schema}`,
        extra: { max: 10 },
      });
      await dataSource.initialize();
      opened.push(dataSource);
      await dataSource.runMigrations({ transaction: 'each' });
      return dataSource;
    },
    async drop() {
      await Promise.all(opened.splice(0).map((dataSource) => (dataSource.isInitialized ? dataSource.destroy() : undefined)));
      await admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
