import type { ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

/** Settings of a dedicated pg connection (for LISTEN) to the database a TypeORM DataSource uses. */
export function listenConnectionConfig(dataSource: DataSource, applicationSuffix: string): ClientConfig {
  const options = dataSource.options as PostgresConnectionOptions;
  if (options.type !== 'postgres') throw new Error(`expected a postgres DataSource, got ${options.type}`);
  const applicationName = options.applicationName ? `${options.applicationName}:${applicationSuffix}` : applicationSuffix;
  return {
    connectionString: options.url,
    host: options.host,
    port: options.port,
    user: options.username,
    password: typeof options.password === 'string' ? options.password : undefined,
    database: options.database,
    ssl: options.ssl as ClientConfig['ssl'],
    application_name: applicationName.slice(0, 63),
    connectionTimeoutMillis: options.connectTimeoutMS ?? 5000,
    // Finds a dead peer on an idle connection, so a LISTEN that no longer hears anything is noticed.
    keepAlive: true,
  };
}
