import { ConfigError, loadConfig } from '@payments/config';
import { GATEWAY_DEFAULTS, GatewayConfig, standardFeeSchedule } from './config';

describe('the gateway\'s command settings', () => {
  it('point at the development ports by default and take a comma-separated list of instances', () => {
    const defaults = loadConfig(GatewayConfig, {}, GATEWAY_DEFAULTS);
    expect(defaults.SESSIONS_URL).toEqual(['tcp://127.0.0.1:4001']);
    expect(defaults.WEBHOOKS_URL).toEqual(['tcp://127.0.0.1:4004']);
    const two = loadConfig(GatewayConfig, { SESSIONS_URL: 'tcp://sessions-0:4001, tcp://sessions-1:4001' }, GATEWAY_DEFAULTS);
    expect(two.SESSIONS_URL).toEqual(['tcp://sessions-0:4001', 'tcp://sessions-1:4001']);
  });

  it('still takes http:// addresses written for the earlier HTTP command transport', () => {
    const legacy = loadConfig(GatewayConfig, { SESSIONS_URL: 'http://sessions-commands:4001' }, GATEWAY_DEFAULTS);
    expect(legacy.SESSIONS_URL).toEqual(['http://sessions-commands:4001']);
  });

  it('refuses a value that is not a list of tcp:// addresses with a port, naming the variable', () => {
    expect(() => loadConfig(GatewayConfig, { SESSIONS_URL: 'sessions:4001' }, GATEWAY_DEFAULTS)).toThrow(ConfigError);
    expect(() => loadConfig(GatewayConfig, { LEDGER_URL: 'ftp://ledger:4002' }, GATEWAY_DEFAULTS)).toThrow(/LEDGER_URL/);
    expect(() => loadConfig(GatewayConfig, { REFUNDS_URL: 'tcp://refunds' }, GATEWAY_DEFAULTS)).toThrow(/REFUNDS_URL/);
  });
});

describe('the standard fee schedule setting (FEE_SCHEDULE_BPS)', () => {
  it('is DESIGN\'s schedule when unset, and basis points per method over it when set', () => {
    expect(standardFeeSchedule(loadConfig(GatewayConfig, {}, GATEWAY_DEFAULTS))).toEqual({ togo: 50, wallet: 50, crypto: 150, lahza: 150 });
    const configured = loadConfig(GatewayConfig, { FEE_SCHEDULE_BPS: 'lahza=120,togo=40' }, GATEWAY_DEFAULTS);
    expect(standardFeeSchedule(configured)).toEqual({ togo: 40, wallet: 40, crypto: 150, lahza: 120 });
  });

  it('stops the service at start on a value it cannot read, naming the variable', () => {
    for (const value of ['lahza=1.5%', 'paypal=100', 'lahza=20000']) {
      expect(() => loadConfig(GatewayConfig, { FEE_SCHEDULE_BPS: value }, GATEWAY_DEFAULTS)).toThrow(/FEE_SCHEDULE_BPS/);
    }
  });
});

describe('the verification auto-approval setting (VERIFICATION_AUTO_APPROVE)', () => {
  const production = { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 3).toString('base64'), COMMAND_SECRET: 'c'.repeat(40), MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail.example:587' };

  it('is off unless set', () => {
    expect(loadConfig(GatewayConfig, {}, GATEWAY_DEFAULTS).VERIFICATION_AUTO_APPROVE).toBe(false);
    expect(loadConfig(GatewayConfig, { VERIFICATION_AUTO_APPROVE: '1' }, GATEWAY_DEFAULTS).VERIFICATION_AUTO_APPROVE).toBe(true);
    expect(loadConfig(GatewayConfig, production, GATEWAY_DEFAULTS).VERIFICATION_AUTO_APPROVE).toBe(false);
  });

  it('stops the service at start in production', () => {
    let refusal: unknown;
    try {
      loadConfig(GatewayConfig, { ...production, VERIFICATION_AUTO_APPROVE: '1' }, GATEWAY_DEFAULTS);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toContain('VERIFICATION_AUTO_APPROVE is a development setting');
  });
});
