import { DEFAULT_RETRY_SCHEDULE_MS, failingTooLong, maxAttempts, nextStep, parseRetryAfter, retryDelayMs } from './retry-policy';

const now = new Date('2025-01-01T00:00:00Z');
const middle = () => 0.5;

describe('retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 14 h, 20 h, 24 h: 11 attempts over about 3.6 days', () => {
    const h = 3_600_000;
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5000, 300_000, 1_800_000, 2 * h, 5 * h, 10 * h, 10 * h, 14 * h, 20 * h, 24 * h]);
    expect(maxAttempts()).toBe(11);
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total / (24 * h)).toBeCloseTo(3.57, 2);
  });

  it('applies ±10% jitter', () => {
    expect(retryDelayMs(1, DEFAULT_RETRY_SCHEDULE_MS, () => 0)).toBe(4500);
    expect(retryDelayMs(1, DEFAULT_RETRY_SCHEDULE_MS, middle)).toBe(5000);
    expect(retryDelayMs(1, DEFAULT_RETRY_SCHEDULE_MS, () => 0.999999)).toBe(5500);
    for (let i = 0; i < 200; i += 1) {
      const delay = retryDelayMs(2)!;
      expect(delay).toBeGreaterThanOrEqual(270_000);
      expect(delay).toBeLessThanOrEqual(330_000);
    }
  });

  it('ends after the last scheduled delay', () => {
    expect(retryDelayMs(10, DEFAULT_RETRY_SCHEDULE_MS, middle)).toBe(24 * 3_600_000);
    expect(retryDelayMs(11)).toBeNull();
    expect(retryDelayMs(3, [100, 200])).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
  });
});

describe('nextStep', () => {
  const options = { now, random: middle };

  it('any 2xx acknowledges', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(nextStep({ kind: 'response', status }, 1, options)).toEqual({ action: 'succeeded' });
  });

  it('3xx, 4xx, 5xx and network errors are retried on the schedule', () => {
    for (const status of [301, 302, 307, 400, 401, 404, 500, 502]) {
      expect(nextStep({ kind: 'response', status }, 1, options)).toEqual({ action: 'retry', delayMs: 5000 });
    }
    expect(nextStep({ kind: 'error', error: 'timeout' }, 2, options)).toEqual({ action: 'retry', delayMs: 300_000 });
  });

  it('410 disables the endpoint at once', () => {
    expect(nextStep({ kind: 'response', status: 410 }, 1, options)).toEqual({ action: 'endpoint_gone' });
  });

  it('honours Retry-After on 429 and 503: never earlier than asked (up to 24 h) nor than the schedule', () => {
    expect(nextStep({ kind: 'response', status: 429, retryAfter: '60' }, 1, options)).toEqual({ action: 'retry', delayMs: 60_000 });
    expect(nextStep({ kind: 'response', status: 503, retryAfter: '1' }, 1, options)).toEqual({ action: 'retry', delayMs: 5000 });
    expect(nextStep({ kind: 'response', status: 503, retryAfter: String(7 * 24 * 3600) }, 1, options)).toEqual({
      action: 'retry',
      delayMs: 24 * 3_600_000,
    });
    expect(nextStep({ kind: 'response', status: 500, retryAfter: '60' }, 1, options)).toEqual({ action: 'retry', delayMs: 5000 });
  });

  it('fails the delivery after the last attempt, whatever Retry-After says', () => {
    expect(nextStep({ kind: 'response', status: 500 }, 11, options)).toEqual({ action: 'failed' });
    expect(nextStep({ kind: 'response', status: 429, retryAfter: '5' }, 11, options)).toEqual({ action: 'failed' });
    expect(nextStep({ kind: 'response', status: 200 }, 11, options)).toEqual({ action: 'succeeded' });
  });

  it('uses a configured schedule', () => {
    expect(nextStep({ kind: 'response', status: 500 }, 1, { ...options, schedule: [100, 100] })).toEqual({ action: 'retry', delayMs: 100 });
    expect(nextStep({ kind: 'response', status: 500 }, 3, { ...options, schedule: [100, 100] })).toEqual({ action: 'failed' });
  });
});

describe('failingTooLong', () => {
  it('is true once an endpoint has failed without a success for 5 days', () => {
    const day = 24 * 3_600_000;
    expect(failingTooLong(null, now)).toBe(false);
    expect(failingTooLong(new Date(now.getTime() - 4.9 * day), now)).toBe(false);
    expect(failingTooLong(new Date(now.getTime() - 5 * day), now)).toBe(true);
  });
});
