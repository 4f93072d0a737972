import { ConfigError, loadConfig } from '@payments/config';
import { GATEWAY_DEFAULTS, GatewayConfig } from '../config';

const production = { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), COMMAND_SECRET: 'c'.repeat(40) };

function problems(env: Record<string, string>): string {
  try {
    loadConfig(GatewayConfig, env, GATEWAY_DEFAULTS);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('the gateway\'s mail settings', () => {
  it('keep mail for the development page by default, and send over SMTP when told', () => {
    const defaults = loadConfig(GatewayConfig, {}, GATEWAY_DEFAULTS);
    expect(defaults.MAIL_TRANSPORT).toBe('page');
    expect(defaults.MAIL_RETRY_DELAYS_MS).toBe('10000,60000,300000,1800000,3600000');
    expect(defaults.MAIL_GIVE_UP_AFTER_MS).toBe(86_400_000);
    const smtp = loadConfig(GatewayConfig, { MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://user:pass@mail.example.com:587', MAIL_FROM: 'Shop payments <pay@example.com>' }, GATEWAY_DEFAULTS);
    expect(smtp).toMatchObject({ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://user:pass@mail.example.com:587', MAIL_FROM: 'Shop payments <pay@example.com>' });
    expect(loadConfig(GatewayConfig, { MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtps://mail.example.com:465' }, GATEWAY_DEFAULTS).SMTP_URL).toBe('smtps://mail.example.com:465');
  });

  it('refuse the development page in production, as they refuse insecure webhook targets', () => {
    expect(problems(production)).toContain('MAIL_TRANSPORT=page is a development setting');
    expect(problems({ ...production, MAIL_TRANSPORT: 'page' })).toContain('MAIL_TRANSPORT=page is a development setting');
    expect(problems({ ...production, MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail.example.com:587' })).toBe('');
  });

  it('need an smtp:// URL to send over SMTP, and never print its password', () => {
    expect(problems({ MAIL_TRANSPORT: 'smtp' })).toContain('SMTP_URL');
    const message = problems({ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'http://user:hunter2@mail.example.com' });
    expect(message).toContain('SMTP_URL must be an smtp://');
    expect(message).not.toContain('hunter2');
  });

  it('refuse a transport, a From, or a retry schedule they cannot read, naming the variable', () => {
    expect(problems({ MAIL_TRANSPORT: 'sendmail' })).toContain('MAIL_TRANSPORT');
    expect(problems({ MAIL_FROM: 'not an address' })).toContain('MAIL_FROM');
    expect(problems({ MAIL_FROM: 'Shop <pay@example.com>\r\nBcc: x@example.com' })).toContain('MAIL_FROM');
    expect(problems({ MAIL_RETRY_DELAYS_MS: '10s,1m' })).toContain('MAIL_RETRY_DELAYS_MS');
    expect(problems({ MAIL_GIVE_UP_AFTER_MS: '10' })).toContain('MAIL_GIVE_UP_AFTER_MS');
  });
});
