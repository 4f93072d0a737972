import { nextMailAttempt, parseRetryDelays } from './mail-retry.policy';

const policy = { delaysMs: [10_000, 60_000, 300_000, 1_800_000, 3_600_000], giveUpAfterMs: 86_400_000 };
const created = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(created.getTime() + ms);

describe('mail retries', () => {
  it('wait 10 s, 1 min, 5 min, 30 min, then every hour', () => {
    expect(nextMailAttempt(1, created, at(0), policy)).toEqual({ action: 'retry', at: at(10_000) });
    expect(nextMailAttempt(2, created, at(10_000), policy)).toEqual({ action: 'retry', at: at(70_000) });
    expect(nextMailAttempt(3, created, at(0), policy)).toEqual({ action: 'retry', at: at(300_000) });
    expect(nextMailAttempt(4, created, at(0), policy)).toEqual({ action: 'retry', at: at(1_800_000) });
    expect(nextMailAttempt(5, created, at(0), policy)).toEqual({ action: 'retry', at: at(3_600_000) });
    expect(nextMailAttempt(40, created, at(0), policy)).toEqual({ action: 'retry', at: at(3_600_000) });
  });

  it('give up once the next try would be more than a day after the message was written', () => {
    expect(nextMailAttempt(20, created, at(86_400_000 - 3_600_000), policy)).toEqual({ action: 'retry', at: at(86_400_000) });
    expect(nextMailAttempt(21, created, at(86_400_000 - 3_599_999), policy)).toEqual({ action: 'give_up' });
  });

  it('give up at once when the server refused the recipient for good', () => {
    expect(nextMailAttempt(1, created, at(0), policy, true)).toEqual({ action: 'give_up' });
  });

  it('read MAIL_RETRY_DELAYS_MS', () => {
    expect(parseRetryDelays('10000, 60000,300000')).toEqual([10_000, 60_000, 300_000]);
    expect(() => parseRetryDelays('')).toThrow();
    expect(() => parseRetryDelays('10s')).toThrow();
    expect(() => parseRetryDelays('50')).toThrow();
    expect(() => parseRetryDelays('1000,,2000')).toThrow();
  });
});
