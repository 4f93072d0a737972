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
    // A limit of 10 per second refills 0.01 tokens a millisecond: nothing whole between these calls.
    const first = await bucket.take(key, 10, 4);
    expect(first.taken).toBe(4);
    expect(first.left).toBeCloseTo(6, 0);
    const second = await bucket.take(key, 10, 8);
    expect(second.taken).toBe(6);
    expect(second.left).toBeLessThan(1);
    expect((await bucket.take(key, 10, 1)).taken).toBe(0);
  });

  it('admits a busy key below its limit from leases, asking Redis a fraction of the times', async () => {
    let asked = 0;
    const leases = new TokenLeases((key, limit, want) => {
      asked += 1;
      return bucket.take(key, limit, want);
    });
    const key = uniqueName('busy');
    let allowed = 0;
    const started = Date.now();
    // About 2,000 requests/s for a second, in groups of 8 as concurrent requests arrive.
    while (Date.now() - started < 1000) {
      const results = await Promise.all(Array.from({ length: 8 }, () => leases.consume(key, 100_000)));
      allowed += results.filter((r) => r.allowed).length;
      await new Promise((resolve) => setTimeout(resolve, 4));
    }
    expect(allowed).toBeGreaterThan(500);
    expect(asked).toBeLessThan(allowed / 4);
  });
});
