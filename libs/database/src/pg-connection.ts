import type { ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

/**
 * Startup options of every connection a service opens. Postgres notices a client that died (kill -9, a lost node)
 * only when it next reads from or writes to its socket: a statement in flight runs to its end first, a lock wait
 * waits on, and every lock its transaction holds (a row, an idempotency key's unique entry, an advisory lock) stays
 * taken meanwhile, however long that is. Polling the socket every second while a statement runs ends such a
 * session within about a second of its client's death (DESIGN §3: a crash frees what it held within 2 s).
 */
export const PG_SESSION_OPTIONS = '-c client_connection_check_interval=1000';

/** Settings for a standalone pg connection (advisory lock, LISTEN) to the same database as a TypeORM DataSource. */
export function pgClientConfig(dataSource: DataSource, applicationSuffix: string): ClientConfig {
  const options = dataSource.options as PostgresConnectionOptions;
  if (options.type !== 'postgres') throw new Error(`expected a postgres DataSource, got ${options.type}`);
  const extra = (options.extra ?? {}) as { connectionTimeoutMillis?: number };
  const applicationName = options.applicationName ? `${options.applicationName}:${applicationSuffix}` : applicationSuffix;
  return {
    connectionString: options.url,
    host: options.host,
    port: options.port,
    user: options.username,
    password: typeof options.password === 'string' ? options.password : undefined,
    database: options.database,
    // TypeORM types ssl as server-side TlsOptions; pg takes the same object as client ConnectionOptions.
    ssl: options.ssl as ClientConfig['ssl'],
    application_name: applicationName.slice(0, 63),
    options: PG_SESSION_OPTIONS,
    connectionTimeoutMillis: options.connectTimeoutMS ?? extra.connectionTimeoutMillis ?? 5000,
    // Notices a dead peer on an idle connection, so a lost advisory lock or a deaf LISTEN is found out.
    keepAlive: true,
  };
}
