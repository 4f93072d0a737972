import { leaseSize, LEASE_TTL_MS, TokenLeases } from './token-lease';
import type { TokenGrant } from './token-bucket';

/** A bucket as the Redis script keeps it, on a clock the test moves. */
function modelBucket(clock: { now: number }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const takes: number[] = [];
  const take = async (key: string, capacity: number, want: number): Promise<TokenGrant> => {
    takes.push(want);
    const state = buckets.get(key) ?? { tokens: capacity, at: clock.now };
    const tokens = Math.min(capacity, state.tokens + ((clock.now - state.at) * capacity) / 1000);
    const taken = Math.max(0, Math.min(want, Math.floor(tokens)));
    buckets.set(key, { tokens: tokens - taken, at: clock.now });
    return { taken, left: tokens - taken };
  };
  return { take, takes };
}

/** One request per millisecond for `ms` milliseconds of the clock; answers how many were admitted. */
async function drive(leases: TokenLeases, clock: { now: number }, key: string, limit: number, ms: number): Promise<number> {
  let allowed = 0;
  for (let at = 0; at < ms; at++) {
    clock.now = at;
    if ((await leases.consume(key, limit)).allowed) allowed += 1;
  }
  return allowed;
}

describe('token leases', () => {
  it('takes one token at a time for a quiet key or a small limit, as many as ~20 ms of traffic for a busy one', () => {
    expect(leaseSize(0, 100_000)).toBe(1);
    expect(leaseSize(40, 1000)).toBe(1);
    expect(leaseSize(500, 100_000)).toBe(10);
    expect(leaseSize(5000, 100_000)).toBe(100);
    // Never more than a twentieth of the limit: the default limits (25, 100) get leases of 1 and 5 at most.
    expect(leaseSize(5000, 25)).toBe(1);
    expect(leaseSize(5000, 100)).toBe(5);
  });

  it('admits exactly the limit in a burst at a small limit, asking the bucket for every request', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    const results = await Promise.all(Array.from({ length: 12 }, () => leases.consume('k', 7)));
    expect(results.filter((r) => r.allowed)).toHaveLength(7);
    expect(results.filter((r) => !r.allowed).every((r) => r.retryAfterSeconds >= 1 && r.remaining === 0)).toBe(true);
    expect(bucket.takes.every((want) => want === 1)).toBe(true);
  });

  it('serves a busy key below its limit from leases: every request admitted, a few questions to the bucket', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    // 1,000 requests/s for 2 s against a limit of 2,000/s.
    expect(await drive(leases, clock, 'busy', 2000, 2000)).toBe(2000);
    expect(bucket.takes.length).toBeLessThan(200);
  });

  it('never admits more than the bucket gave a key over its limit', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    // 1,000 requests/s for 2 s against a limit of 600/s: the bucket gives 600 at once and 600 per second after.
    const allowed = await drive(leases, clock, 'over', 600, 2000);
    expect(allowed).toBeLessThanOrEqual(600 + 600 * 2);
    // Refused slightly early at most: a lease's tokens are spent before the next is taken.
    expect(allowed).toBeGreaterThan(600 + 600 * 2 - 30);
  });

  it('gives up held tokens after the lease time and under a changed limit', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    await drive(leases, clock, 'k', 10_000, 600);
    const asked = bucket.takes.length;
    clock.now += LEASE_TTL_MS + 1;
    await leases.consume('k', 10_000);
    expect(bucket.takes.length).toBe(asked + 1);
    await leases.consume('k', 20_000);
    expect(bucket.takes.length).toBe(asked + 2);
  });

  it('shares one question to the bucket among requests that arrive together, and a refusal alike', async () => {
    let release!: (grant: TokenGrant) => void;
    let asked = 0;
    const leases = new TokenLeases(async () => {
      asked += 1;
      return new Promise<TokenGrant>((resolve) => (release = resolve));
    });
    const pending = Array.from({ length: 5 }, () => leases.consume('k', 100));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    release({ taken: 0, left: 0.2 });
    const results = await Promise.all(pending);
    expect(results.every((r) => !r.allowed)).toBe(true);
    expect(asked).toBe(1);
  });

  it('fails the requests waiting on a take that failed, without asking again (Redis not answering)', async () => {
    let fail!: (error: Error) => void;
    let asked = 0;
    const leases = new TokenLeases(async () => {
      asked += 1;
      return new Promise<TokenGrant>((_, reject) => (fail = reject));
    });
    const pending = Array.from({ length: 5 }, () => leases.consume('k', 100).then(() => 'admitted', () => 'failed'));
    await new Promise((resolve) => setImmediate(resolve));
    fail(new Error('Command timed out'));
    expect(await Promise.all(pending)).toEqual(Array(5).fill('failed'));
    expect(asked).toBe(1);
  });

  it('plans one token for the request\'s own round trip when none is held, and spends held ones first', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    expect(await leases.plan('k', 2000)).toBeUndefined();
    expect(leases.granted('k', 2000, await bucket.take('k', 2000, 1))).toMatchObject({ allowed: true });
    // A busy key's lease, taken for other requests, is spent by planned ones without a round trip of their own.
    await drive(leases, clock, 'k', 2000, 300);
    const asked = bucket.takes.length;
    const plan = await leases.plan('k', 2000);
    expect(plan).toEqual(expect.objectContaining({ allowed: true }));
    expect(bucket.takes.length).toBe(asked);
    // Once they are spent, the request's own round trip takes its one token (TAKE_AND_CLAIM takes one, never a lease).
    let next = plan;
    while (next) next = await leases.plan('k', 2000);
    expect(next).toBeUndefined();
  });

  it('admits a burst of planned requests up to the limit, none refused below it, never more than the bucket gave', async () => {
    const clock = { now: 0 };
    const bucket = modelBucket(clock);
    const leases = new TokenLeases(bucket.take, () => clock.now);
    const admit = async (key: string, limit: number) => {
      const plan = await leases.plan(key, limit);
      return plan ?? leases.granted(key, limit, await bucket.take(key, limit, 1));
    };
    const below = await Promise.all(Array.from({ length: 64 }, () => admit('burst', 100)));
    expect(below.every((r) => r.allowed)).toBe(true);
    const over = await Promise.all(Array.from({ length: 20 }, () => admit('small', 7)));
    expect(over.filter((r) => r.allowed)).toHaveLength(7);
  });

  it('refuses a planned request the bucket gave nothing, with when to retry', () => {
    const leases = new TokenLeases(async () => ({ taken: 0, left: 0 }));
    const refused = leases.granted('k', 5, { taken: 0, left: 0.4 });
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.retryAfterSeconds).toBe(1);
  });
});
