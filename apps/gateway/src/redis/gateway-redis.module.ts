import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { GatewayConfig } from '../config';

/** The gateway's Redis connection (rate limits and idempotency records). */
export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');

const logger = new Logger('Redis');
const WARN_EVERY_MS = 10000;

/**
 * Commands fail at once while Redis is unreachable (no offline queue, short timeouts) and the client keeps
 * reconnecting in the background, so callers can fail open instead of holding requests.
 */
export function createGatewayRedis(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    // How long shutdown waits for the socket to close (the default 2 s also holds a process whose Redis is down).
    disconnectTimeout: 200,
    // Commands issued in the same event-loop turn (rate limit, cache, idempotency of concurrent requests) share one write.
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastWarning = 0;
  redis.on('error', (error: Error) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: error }, 'Redis unreachable: rate limits and idempotency replays are off until it answers');
  });
  return redis;
}

@Module({
  providers: [
    {
      provide: GATEWAY_REDIS,
      inject: [GatewayConfig],
      useFactory: async (config: GatewayConfig) => {
        const redis = createGatewayRedis(config.REDIS_URL);
        // Start without Redis rather than not at all: the connection is retried in the background.
        await redis.connect().catch((error: unknown) => logger.warn({ err: error }, 'Redis not reachable at start'));
        return redis;
      },
    },
  ],
  exports: [GATEWAY_REDIS],
})
export class GatewayRedisModule implements OnApplicationShutdown {
  constructor(@Inject(GATEWAY_REDIS) private readonly redis: Redis) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
