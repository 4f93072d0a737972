import { IsInt, Min } from 'class-validator';
import { ConfigError, DEVELOPMENT_COMMAND_SECRET, loadConfig, parseCommandSecrets, ServiceConfig, trustProxyOption } from './index';

class Sample extends ServiceConfig {
  @IsInt()
  @Min(1)
  WORKERS: number = 2;
}

describe('loadConfig', () => {
  it('applies defaults and converts numbers and lists', () => {
    const c = loadConfig(Sample, { PORT: '3005', KAFKA_BROKERS: 'a:1, b:2' });
    expect(c.PORT).toBe(3005);
    expect(c.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(c.WORKERS).toBe(2);
    expect(c.DB_SCHEMA).toBe('public');
    // DESIGN §9: the machine's Postgres on loopback, database `test` (as the services' own role).
    expect(c.DATABASE_URL).toBe('postgres://payments@127.0.0.1:5432/test');
  });

  it('trusts no proxy unless told (TRUST_PROXY): a hop count or the proxies\' addresses', () => {
    expect(trustProxyOption(loadConfig(Sample, {}).TRUST_PROXY)).toBe(false);
    expect(trustProxyOption(loadConfig(Sample, { TRUST_PROXY: '1' }).TRUST_PROXY)).toBe(1);
    expect(trustProxyOption(loadConfig(Sample, { TRUST_PROXY: '10.0.0.0/8, 192.168.1.4' }).TRUST_PROXY)).toBe('10.0.0.0/8,192.168.1.4');
    for (const bad of ['true', 'yes', '0', '10.0.0.0/8;rm']) expect(() => loadConfig(Sample, { TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
  });

  it('spaces outbox relay cycles 50 ms apart unless told (OUTBOX_SPACING_MS, 0 to 1000)', () => {
    expect(loadConfig(Sample, {}).OUTBOX_SPACING_MS).toBe(50);
    expect(loadConfig(Sample, { OUTBOX_SPACING_MS: '0' }).OUTBOX_SPACING_MS).toBe(0);
    for (const bad of ['-1', '1001', 'soon']) expect(() => loadConfig(Sample, { OUTBOX_SPACING_MS: bad })).toThrow(/OUTBOX_SPACING_MS/);
  });

  it('takes per-service defaults and treats empty values as unset', () => {
    const c = loadConfig(Sample, { DB_SCHEMA: '' }, { DB_SCHEMA: 'ledger', PORT: '3002' });
    expect(c.DB_SCHEMA).toBe('ledger');
    expect(c.PORT).toBe(3002);
  });

  it('names every bad variable and redacts secrets', () => {
    let error: unknown;
    try {
      loadConfig(Sample, { PORT: 'eighty', WORKERS: '0', DATABASE_URL: 'mysql://x', WEBHOOK_SECRET_KEY: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT');
    expect(message).toContain('"eighty"');
    expect(message).toContain('WORKERS');
    expect(message).toContain('DATABASE_URL');
    expect(message).not.toContain('LOG_LEVEL');
  });

  it('never prints the password of a URL setting it refuses', () => {
    let message = '';
    try {
      loadConfig(Sample, { DATABASE_URL: 'postgres://payments:hunter2@db host/payments', REDIS_URL: 'redis://:s3cr3t-pass@redis host:6379' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain('REDIS_URL');
    expect(message).toContain('[redacted]');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('s3cr3t-pass');
  });

  it('has a development COMMAND_SECRET that production refuses, with every one written in the repository', () => {
    const problem = (env: Record<string, string>) => {
      try {
        loadConfig(Sample, env);
        return '';
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
    };
    expect(loadConfig(Sample, {}).COMMAND_SECRET).toBe(DEVELOPMENT_COMMAND_SECRET);
    expect(problem({ NODE_ENV: 'production' })).toContain('COMMAND_SECRET must be set to a secret when NODE_ENV=production');
    expect(problem({ NODE_ENV: 'production', COMMAND_SECRET: `${'r'.repeat(40)},${DEVELOPMENT_COMMAND_SECRET}` })).toContain('COMMAND_SECRET must be set');
    expect(problem({ NODE_ENV: 'production', COMMAND_SECRET: 'dev-only-command-secret-of-the-k8s-dev-overlay' })).toContain('COMMAND_SECRET must be set');
    const production = loadConfig(Sample, { NODE_ENV: 'production', COMMAND_SECRET: ` ${'n'.repeat(44)} , ${'o'.repeat(32)}` });
    expect(parseCommandSecrets(production.COMMAND_SECRET)).toEqual(['n'.repeat(44), 'o'.repeat(32)]);
    // Too short to be a secret, and never printed.
    const short = problem({ COMMAND_SECRET: 'hunter2-is-short' });
    expect(short).toContain('COMMAND_SECRET');
    expect(short).not.toContain('hunter2');
  });

  it('listens for commands on every interface unless COMMAND_HOST names one', () => {
    expect(loadConfig(Sample, {}).COMMAND_HOST).toBe('0.0.0.0');
    expect(loadConfig(Sample, { COMMAND_HOST: '127.0.0.1' }).COMMAND_HOST).toBe('127.0.0.1');
    expect(() => loadConfig(Sample, { COMMAND_HOST: 'every' })).toThrow(/COMMAND_HOST/);
  });
});
