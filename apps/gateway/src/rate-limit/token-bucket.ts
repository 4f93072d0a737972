import type { Redis } from 'ioredis';

/**
 * One atomic step of a token bucket kept in a Redis hash, as a Lua function other scripts can include (the
 * idempotency claim takes a request's tokens in the same round trip): refill by elapsed time (Redis's clock, so
 * every gateway instance agrees), then take up to `want` whole tokens, as many as there are. The bucket holds
 * `capacity` tokens and refills `capacity` per second: a key may burst to its per-second limit, then gets that
 * rate on average. Returns { tokens taken, tokens left as a string }; the hash expires once it would be full again.
 */
export const TAKE_TOKENS_FUNCTION = `
local function take_tokens(key, capacity, want)
  local per_ms = capacity / 1000
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(state[1])
  local at = tonumber(state[2])
  if tokens == nil or at == nil then
    tokens = capacity
    at = now
  end
  tokens = math.min(capacity, tokens + math.max(0, now - at) * per_ms)
  local taken = math.min(want, math.floor(tokens))
  if taken < 1 then
    taken = 0
  end
  tokens = tokens - taken
  redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', key, 2000)
  return { taken, tostring(tokens) }
end
`;

const TAKE_TOKENS = `${TAKE_TOKENS_FUNCTION}
return take_tokens(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
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

type TakeTokens = (key: string, capacity: number, want: number) => Promise<[number, string]>;

/** What one step of the bucket in Redis answered: whole tokens taken, and what the bucket holds after. */
export interface TokenGrant {
  taken: number;
  /** Tokens left in the bucket (fractional: it refills continuously). */
  left: number;
}

export class RedisTokenBucket {
  private readonly takeTokens: TakeTokens;

  constructor(redis: Redis) {
    // defineCommand sends EVALSHA and falls back to EVAL once when Redis does not know the script yet.
    // Named anew for the script that takes several tokens: an instance of the earlier one-token script may
    // share this Redis during a rolling upgrade.
    if (!('gatewayTakeTokens' in redis)) redis.defineCommand('gatewayTakeTokens', { numberOfKeys: 1, lua: TAKE_TOKENS });
    this.takeTokens = (redis as unknown as { gatewayTakeTokens: TakeTokens }).gatewayTakeTokens.bind(redis);
  }

  /** Takes up to `want` tokens of the key's bucket (`limitPerSecond` its size and refill rate). */
  async take(key: string, limitPerSecond: number, want: number): Promise<TokenGrant> {
    const [taken, left] = await this.takeTokens(key, limitPerSecond, want);
    return { taken, left: Number(left) };
  }
}

/** The result and its headers' figures, from the tokens the bucket holds (and this instance holds for it). */
export function bucketResult(limitPerSecond: number, allowed: boolean, tokens: number): TokenBucketResult {
  return {
    allowed,
    limit: limitPerSecond,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((limitPerSecond - Math.min(tokens, limitPerSecond)) / limitPerSecond),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / limitPerSecond)),
  };
}
