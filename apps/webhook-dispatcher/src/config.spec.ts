import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '@payments/config';
import { webhookDnsOptions } from '@payments/webhooks';
import { DEFAULT_RETRY_SCHEDULE_MS, DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '@payments/webhooks';
import { WebhookDispatcherConfig, WEBHOOK_DISPATCHER_DEFAULTS } from './config';

const load = (env: Record<string, string>) => loadConfig(WebhookDispatcherConfig, env, WEBHOOK_DISPATCHER_DEFAULTS);

function problems(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}

describe('WebhookDispatcherConfig', () => {
  it('has working development defaults', () => {
    const config = load({});
    expect(config.WEBHOOK_SECRETS_KEY).toBe(DEVELOPMENT_WEBHOOK_SECRETS_KEY);
    expect(config.WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(config.WEBHOOK_USER_AGENT).toMatch(/\/\d/);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual(DEFAULT_RETRY_SCHEDULE_MS);
    expect(config.DB_SCHEMA).toBe('webhooks');
  });

  it('reads the insecure-targets flag and a short retry schedule for tests', () => {
    const config = load({ WEBHOOK_ALLOW_INSECURE_TARGETS: '1', WEBHOOK_RETRY_SCHEDULE_MS: '100, 200,300' });
    expect(config.WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(true);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([100, 200, 300]);
    expect(load({ WEBHOOK_ALLOW_INSECURE_TARGETS: '0' }).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(problems({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'maybe' })).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS');
    expect(problems({ WEBHOOK_RETRY_SCHEDULE_MS: '100,soon' })).toContain('WEBHOOK_RETRY_SCHEDULE_MS');
  });

  it('reads the webhook name servers and refuses what is not an address', () => {
    const config = load({ WEBHOOK_DNS_SERVERS: '10.96.0.10, 127.0.0.1:5353', WEBHOOK_DNS_TIMEOUT_MS: '800', WEBHOOK_DNS_LOOKUPS_PER_MERCHANT: '2' });
    expect(webhookDnsOptions(config)).toEqual({ servers: ['10.96.0.10', '127.0.0.1:5353'], timeoutMs: 800, tries: 2, perOwnerInFlight: 2 });
    expect(webhookDnsOptions(load({})).servers).toEqual([]);
    expect(problems({ WEBHOOK_DNS_SERVERS: 'kube-dns.kube-system' })).toContain('WEBHOOK_DNS_SERVERS must be a comma-separated list of name server addresses');
    expect(problems({ WEBHOOK_DNS_TRIES: '0' })).toContain('WEBHOOK_DNS_TRIES');
  });

  it('refuses to start in production with the insecure-targets flag or the development key', () => {
    const key = randomBytes(32).toString('base64');
    expect(load({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: key, COMMAND_SECRET: randomBytes(32).toString('base64') }).NODE_ENV).toBe('production');
    expect(problems({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: key, WEBHOOK_ALLOW_INSECURE_TARGETS: '1' })).toMatch(
      /WEBHOOK_ALLOW_INSECURE_TARGETS is a development setting and is refused when NODE_ENV=production/,
    );
    expect(problems({ NODE_ENV: 'production' })).toMatch(/WEBHOOK_SECRETS_KEY must be set to a secret key when NODE_ENV=production/);
  });

  it('checks the key, and keeps a lease (renewed while its attempt runs) short enough that a crash frees it within 2 s', () => {
    expect(problems({ WEBHOOK_SECRETS_KEY: randomBytes(16).toString('base64') })).toContain('WEBHOOK_SECRETS_KEY must be 32 random bytes');
    expect(problems({ WEBHOOK_SECRETS_KEY: 'short' })).not.toContain('short');
    expect(load({}).WEBHOOK_LEASE_MS).toBe(2000);
    expect(load({ WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_LEASE_MS: '1000' }).WEBHOOK_LEASE_MS).toBe(1000);
    expect(problems({ WEBHOOK_LEASE_MS: '7000' })).toContain('WEBHOOK_LEASE_MS');
    expect(problems({ WEBHOOK_LEASE_MS: '500' })).toContain('WEBHOOK_LEASE_MS');
    expect(problems({ WEBHOOK_POLL_INTERVAL_MS: '20000' })).toContain('WEBHOOK_POLL_INTERVAL_MS');
    expect(problems({ WEBHOOK_USER_AGENT: 'webhooks' })).toContain('WEBHOOK_USER_AGENT');
  });
});
