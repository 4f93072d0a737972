import { uniqueName } from '@payments/testing';
import { Redis } from 'ioredis';
import { RedisTokenBucket } from '../src/rate-limit/token-bucket';
import { TokenLeases } from '../src/rate-limit/token-lease';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The rate limit's bucket in real Redis: tokens taken several at a time, never more than it holds, and a busy key
// served from leases with a question to Redis per lease, not per request.
describe('token bucket and leases (real Redis)', () => {
  const redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
  const bucket = new RedisTokenBucket(redis);

  afterAll(() => redis.disconnect());

  it('takes as many tokens as asked while the bucket holds them, then what is left, then none', async () => {
    const key = uniqueName('bucket');
    // A limit of 10 per second refills 0.01 tokens a millisecond: nothing whole between these calls on a quiet
    // machine. A busy one can pause between them, so what refilled meanwhile is allowed for, never more.
    const refilledSince = (start: number) => ((Date.now() - start) * 10) / 1000;
    const start = Date.now();
    const first = await bucket.take(key, 10, 4);
    expect(first.taken).toBe(4);
    expect(first.left).toBeCloseTo(6, 0);
    const beforeSecond = Date.now();
    const second = await bucket.take(key, 10, 8);
    expect(second.taken).toBeGreaterThanOrEqual(6);
    expect(second.taken).toBeLessThanOrEqual(Math.min(8, 6 + Math.floor(refilledSince(start))));
    expect(second.left).toBeLessThan(1);
    const third = await bucket.take(key, 10, 1);
    // Redis's clock read the second take before this process saw its answer: the refill since counts from before.
    expect(third.taken).toBeLessThanOrEqual(Math.floor(second.left + refilledSince(beforeSecond)));
  });

  it('admits a busy key below its limit from leases, asking Redis a fraction of the times', async () => {
    let asked = 0;
    const leases = new TokenLeases((key, limit, want) => {
      asked += 1;
      return bucket.take(key, limit, want);
    });
    const key = uniqueName('busy');
    let allowed = 0;
    // 1,000 requests at about 2,000/s, in groups of 8 as concurrent requests arrive; counted, not timed, so a machine
    // that stalls meanwhile sends them all the same.
    for (let round = 0; round < 125; round += 1) {
      const results = await Promise.all(Array.from({ length: 8 }, () => leases.consume(key, 100_000)));
      allowed += results.filter((r) => r.allowed).length;
      await new Promise((resolve) => setTimeout(resolve, 4));
    }
    expect(allowed).toBeGreaterThan(500);
    expect(asked).toBeLessThan(allowed / 4);
  });
});
