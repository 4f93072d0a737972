import { exitOf, startService } from '@payments/testing';

// A bad or missing setting stops a service at start with a message naming the variable.
describe('configuration validated at start', () => {
  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['KAFKA_BROKERS', { PORT: '3999', KAFKA_BROKERS: 'not a broker list' }],
    ['DATABASE_URL', { PORT: '3999', DATABASE_URL: 'mysql://nope' }],
    ['LOG_LEVEL', { PORT: '3999', LOG_LEVEL: 'loud' }],
  ])('refuses a bad %s', async (name, env) => {
    const service = await startService('ledger', env as Record<string, string>, { waitReady: false });
    const { code, output } = await exitOf(service);
    expect(code).toBe(1);
    expect(output).toContain(name);
    expect(output).toContain('Invalid configuration');
  });
});
