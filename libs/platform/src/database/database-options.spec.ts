import { loadConfig, ServiceConfig } from '@payments/config';
import { dataSourceOptions, migrationDataSourceOptions } from './database.module';

describe('database options', () => {
  const extraOf = (options: object) => (options as { extra: Record<string, unknown> }).extra;

  it('gives every pooled connection the lock and statement timeouts of the settings', () => {
    const defaults = extraOf(dataSourceOptions(loadConfig(ServiceConfig, {}), {}));
    expect(defaults).toMatchObject({ lock_timeout: 4000, statement_timeout: 30000 });
    const set = extraOf(dataSourceOptions(loadConfig(ServiceConfig, { DB_LOCK_TIMEOUT_MS: '250', DB_STATEMENT_TIMEOUT_MS: '0' }), {}));
    expect(set).toMatchObject({ lock_timeout: 250, statement_timeout: 0 });
  });

  it('has every connection, the migrations\' too, end within a second of its client\'s death', () => {
    const options = dataSourceOptions(loadConfig(ServiceConfig, {}), {});
    expect(extraOf(options).options).toBe('-c client_connection_check_interval=1000');
    expect(extraOf(migrationDataSourceOptions(options)).options).toBe('-c client_connection_check_interval=1000');
  });

  it('runs migrations without either limit, on two connections (the advisory lock and the migrations)', () => {
    const options = dataSourceOptions(loadConfig(ServiceConfig, { DB_POOL_SIZE: '20' }), {});
    expect(extraOf(migrationDataSourceOptions(options))).toMatchObject({ max: 2, lock_timeout: 0, statement_timeout: 0, connectionTimeoutMillis: 5000 });
    expect(extraOf(options)).toMatchObject({ max: 20, lock_timeout: 4000 });
  });

  it('keeps idle connections, probed by TCP keepalive, unless told to close them', () => {
    expect(extraOf(dataSourceOptions(loadConfig(ServiceConfig, {}), {}))).toMatchObject({ idleTimeoutMillis: 0, keepAlive: true });
    expect(extraOf(dataSourceOptions(loadConfig(ServiceConfig, { DB_POOL_IDLE_TIMEOUT_MS: '60000' }), {}))).toMatchObject({ idleTimeoutMillis: 60000 });
  });

  it('refuses a negative or absurd timeout at start', () => {
    expect(() => loadConfig(ServiceConfig, { DB_LOCK_TIMEOUT_MS: '-1' })).toThrow(/DB_LOCK_TIMEOUT_MS/);
    expect(() => loadConfig(ServiceConfig, { DB_STATEMENT_TIMEOUT_MS: '99999999' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig(ServiceConfig, { DB_POOL_IDLE_TIMEOUT_MS: '-5' })).toThrow(/DB_POOL_IDLE_TIMEOUT_MS/);
  });
});
