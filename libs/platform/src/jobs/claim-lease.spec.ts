import { CLAIM_LEASE_MS, CLAIM_RENEW_EVERY_MS, keepingClaims } from './claim-lease';

describe('keepingClaims', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('renews the claims still held every CLAIM_RENEW_EVERY_MS, a lease ahead, and none once the work is done', async () => {
    const renewals: Array<{ ids: readonly string[]; until: number; at: number }> = [];
    const extend = async (ids: readonly string[], until: Date) => void renewals.push({ ids, until: until.getTime(), at: Date.now() });
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const running = keepingClaims(['a', 'b'], { extend, onRenewalError: () => undefined }, async (claims) => {
      await jest.advanceTimersByTimeAsync(CLAIM_RENEW_EVERY_MS);
      claims.release('a');
      await jest.advanceTimersByTimeAsync(CLAIM_RENEW_EVERY_MS);
      await done;
      return 'worked';
    });
    await jest.advanceTimersByTimeAsync(0);
    finish();
    expect(await running).toBe('worked');
    await jest.advanceTimersByTimeAsync(5 * CLAIM_RENEW_EVERY_MS);
    expect(renewals).toEqual([
      { ids: ['a', 'b'], until: CLAIM_RENEW_EVERY_MS + CLAIM_LEASE_MS, at: CLAIM_RENEW_EVERY_MS },
      { ids: ['b'], until: 2 * CLAIM_RENEW_EVERY_MS + CLAIM_LEASE_MS, at: 2 * CLAIM_RENEW_EVERY_MS },
    ]);
  });

  it('reports a failed renewal and renews again at the next tick', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const extend = async () => {
      calls += 1;
      if (calls === 1) throw new Error('connection lost');
    };
    await keepingClaims(['a'], { extend, onRenewalError: (error) => errors.push(error) }, async () => {
      await jest.advanceTimersByTimeAsync(2 * CLAIM_RENEW_EVERY_MS);
    });
    expect(calls).toBe(2);
    expect(errors).toEqual([new Error('connection lost')]);
  });
});
