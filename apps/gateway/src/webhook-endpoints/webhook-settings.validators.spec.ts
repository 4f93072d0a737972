import { ConfigError, loadConfig } from '@payments/config';
import { DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '@payments/webhooks';
import { GatewayConfig } from '../config';

const secretKey = Buffer.alloc(32, 7).toString('base64');

function problems(env: Record<string, string>): string {
  try {
    loadConfig(GatewayConfig, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('gateway webhook settings', () => {
  it('defaults to the development key with insecure targets off', () => {
    const config = loadConfig(GatewayConfig, {});
    expect(config.WEBHOOK_SECRETS_KEY).toBe(DEVELOPMENT_WEBHOOK_SECRETS_KEY);
    expect(config.WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
  });

  it('reads the insecure-targets switch literally', () => {
    expect(loadConfig(GatewayConfig, { WEBHOOK_ALLOW_INSECURE_TARGETS: '1' }).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(true);
    expect(loadConfig(GatewayConfig, { WEBHOOK_ALLOW_INSECURE_TARGETS: 'false' }).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(loadConfig(GatewayConfig, { WEBHOOK_ALLOW_INSECURE_TARGETS: '0' }).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(problems({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'sometimes' })).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS');
  });

  it('refuses a key that is not 32 bytes of base64, without showing it', () => {
    const message = problems({ WEBHOOK_SECRETS_KEY: Buffer.alloc(16, 1).toString('base64') });
    expect(message).toContain('WEBHOOK_SECRETS_KEY');
    expect(message).not.toContain(Buffer.alloc(16, 1).toString('base64'));
  });

  it('refuses the development key and the insecure switch in production', () => {
    expect(problems({ NODE_ENV: 'production' })).toContain('WEBHOOK_SECRETS_KEY must be set to a secret key');
    expect(problems({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: secretKey, WEBHOOK_ALLOW_INSECURE_TARGETS: '1' })).toContain(
      'WEBHOOK_ALLOW_INSECURE_TARGETS is a development setting',
    );
    expect(loadConfig(GatewayConfig, { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: secretKey, COMMAND_SECRET: 'c'.repeat(40), MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail:587' }).WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
  });
});
