import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { decryptSecret, encryptSecret, parseSecretsKey } from '@payments/webhooks';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { IdempotencyExchanges } from './idempotency.exchanges';
import { registerIdempotencyHook } from './idempotency.hook';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore, type ResponseSealer } from './idempotency.store';

/** Replay records showing a webhook secret are encrypted with the key that protects those secrets at rest. */
function secretBoxSealer(key: Buffer): ResponseSealer {
  return { seal: (body) => encryptSecret(body, key), open: (sealed) => decryptSecret(sealed, key) };
}

/**
 * An unfinished claim's lease and how often the request holding it renews it: a gateway killed mid-request frees
 * its keys within the lease (DESIGN §3: within 2 s), while three renewals in a row may be missed (a long GC pause,
 * a busy loop) before a live request's key lapses.
 */
const CLAIM_LEASE_MS = 2000;
const CLAIM_RENEW_EVERY_MS = 500;
/** A request holds its key at most its command deadline and this margin (its answer being written and stored). */
const CLAIM_HOLD_MARGIN_MS = 5000;

/** Idempotency-Key handling for `@Idempotent()` routes; import it in the module of such a controller. */
@Module({
  imports: [GatewayRedisModule, RateLimitModule],
  providers: [
    IdempotencyExchanges,
    {
      provide: IdempotencyStore,
      inject: [GATEWAY_REDIS, GatewayConfig],
      useFactory: (redis: Redis, config: GatewayConfig) =>
        new IdempotencyStore(redis, {
          prefix: config.KAFKA_NAMESPACE,
          ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
          waitMs: config.IDEMPOTENCY_WAIT_MS,
          leaseMs: CLAIM_LEASE_MS,
          renewEveryMs: CLAIM_RENEW_EVERY_MS,
          maxHoldMs: config.REQUEST_TIMEOUT_MS + CLAIM_HOLD_MARGIN_MS,
          sealer: secretBoxSealer(parseSecretsKey(config.WEBHOOK_SECRETS_KEY)),
        }),
    },
    IdempotencyInterceptor,
  ],
  // RateLimitModule too: @Idempotent() routes build the interceptor in their own module, which needs its limiter.
  exports: [IdempotencyExchanges, IdempotencyStore, IdempotencyInterceptor, RateLimitModule],
})
export class IdempotencyModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly exchanges: IdempotencyExchanges,
    private readonly store: IdempotencyStore,
  ) {}

  onModuleInit(): void {
    // No HTTP adapter in a standalone context (e.g. a script): there are no routes to guard.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify) registerIdempotencyHook(fastify, this.exchanges, this.store);
  }
}
