import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import type { Environment } from '@payments/ids';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { GATEWAY_REDIS } from '../redis/gateway-redis.module';
import { RedisTokenBucket, type TokenBucketResult, type TokenGrant } from './token-bucket';
import { TokenLeases } from './token-lease';

export interface RateLimitSubject {
  keyId: string;
  environment: Environment;
  /** The merchant's own limits; null follows the operator's default. */
  limits: { live: number | null; test: number | null };
}

const WARN_EVERY_MS = 10000;

/** A request's token, to be taken in its idempotency claim's round trip (RateLimiter.plan): whose, which bucket. */
export interface PlannedTokens {
  subject: RateLimitSubject;
  bucketKey: string;
  limit: number;
}

/**
 * Per-key request rate (token bucket in Redis; a busy key's tokens are taken a few at a time, see TokenLeases).
 * When Redis does not answer the request is let through with a logged warning: an unavailable limiter must not
 * take payments down.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private readonly leases: TokenLeases;
  private lastWarning = 0;

  constructor(
    @Inject(GATEWAY_REDIS) redis: Redis,
    private readonly config: GatewayConfig,
  ) {
    const bucket = new RedisTokenBucket(redis);
    this.leases = new TokenLeases((key, limit, want) => bucket.take(key, limit, want));
  }

  limitFor(subject: RateLimitSubject): number {
    return subject.environment === 'live'
      ? (subject.limits.live ?? this.config.RATE_LIMIT_LIVE_PER_SEC)
      : (subject.limits.test ?? this.config.RATE_LIMIT_TEST_PER_SEC);
  }

  /** The outcome with its headers, or null when the limiter is unavailable (fail open). */
  async consume(subject: RateLimitSubject): Promise<TokenBucketResult | null> {
    try {
      return await this.leases.consume(this.bucketKey(subject), this.limitFor(subject));
    } catch (error) {
      this.unavailable(error);
      return null;
    }
  }

  /**
   * For a request whose idempotency claim goes to Redis anyway: the outcome now when this instance holds a token
   * for the key (or null: unavailable, fail open), or the token to take in the claim's round trip.
   */
  async plan(subject: RateLimitSubject): Promise<{ result: TokenBucketResult | null } | { take: PlannedTokens }> {
    const bucketKey = this.bucketKey(subject);
    const limit = this.limitFor(subject);
    try {
      const result = await this.leases.plan(bucketKey, limit);
      return result ? { result } : { take: { subject, bucketKey, limit } };
    } catch (error) {
      this.unavailable(error);
      return { result: null };
    }
  }

  /** The outcome of a planned token, from what the claim's round trip took. */
  granted(tokens: PlannedTokens, grant: TokenGrant): TokenBucketResult {
    return this.leases.granted(tokens.bucketKey, tokens.limit, grant);
  }

  /** Logs, at most every WARN_EVERY_MS, that Redis did not answer the limiter. */
  private unavailable(error: unknown): void {
    if (Date.now() - this.lastWarning > WARN_EVERY_MS) {
      this.lastWarning = Date.now();
      this.logger.warn({ err: error }, 'rate limiter unavailable: requests are not limited until Redis answers');
    }
  }

  private bucketKey(subject: RateLimitSubject): string {
    return `${this.config.KAFKA_NAMESPACE}:ratelimit:${subject.keyId}`;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Tokens left for the idempotency claim's round trip to take (RateLimiter.plan); unset once taken. */
    plannedTokens?: PlannedTokens;
  }
}

/** Puts a result's headers on the answer; throws the 429 when it refuses the request. */
export function admitWith(result: TokenBucketResult, reply: FastifyReply): void {
  void reply.headers(rateLimitHeaders(result));
  if (!result.allowed) throw rateLimitedError(result);
}

/** The RateLimit-* headers of a result. */
export function rateLimitHeaders(result: TokenBucketResult): Record<string, string> {
  return {
    'RateLimit-Limit': String(result.limit),
    'RateLimit-Remaining': String(result.remaining),
    'RateLimit-Reset': String(result.resetSeconds),
  };
}

export function rateLimitedError(result: TokenBucketResult): ApiError {
  return new ApiError('rate_limited', `Too many requests: this key may make ${result.limit} requests per second.`, undefined, {
    'Retry-After': String(result.retryAfterSeconds),
  });
}
