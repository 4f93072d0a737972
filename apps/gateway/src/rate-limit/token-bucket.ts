import type { Redis } from 'ioredis';

/**
 * One atomic step of a token bucket kept in a Redis hash: refill by elapsed time (Redis's clock, so every
 * gateway instance agrees), then take one token if there is one. The bucket holds `capacity` tokens and
 * refills `capacity` per second: a key may burst to its per-second limit, then gets that rate on average.
 * Returns [allowed (1|0), tokens left as a string]; the hash expires once it would be full again anyway.
 */
const TAKE_TOKEN = `
local capacity = tonumber(ARGV[1])
local per_ms = capacity / 1000
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 2000)
return { allowed, tostring(tokens) }
`;

export interface TokenBucketResult {
  allowed: boolean;
  /** Requests per second (= bucket size). */
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token, when refused. */
  retryAfterSeconds: number;
}

type TakeToken = (key: string, capacity: number) => Promise<[number, string]>;

export class RedisTokenBucket {
  private readonly take: TakeToken;

  constructor(redis: Redis) {
    // defineCommand sends EVALSHA and falls back to EVAL once when Redis does not know the script yet.
    if (!('gatewayTakeToken' in redis)) redis.defineCommand('gatewayTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
    const command = (redis as unknown as { gatewayTakeToken: TakeToken }).gatewayTakeToken.bind(redis);
    this.take = command;
  }

  async consume(key: string, limitPerSecond: number): Promise<TokenBucketResult> {
    const [allowed, left] = await this.take(key, limitPerSecond);
    const tokens = Number(left);
    return {
      allowed: allowed === 1,
      limit: limitPerSecond,
      remaining: Math.max(0, Math.floor(tokens)),
      resetSeconds: Math.ceil((limitPerSecond - tokens) / limitPerSecond),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / limitPerSecond)),
    };
  }
}
