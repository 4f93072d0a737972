import { Global, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { ResourceCache } from './resource-cache';
import { ResourceInvalidationConsumer } from './resource-invalidation.consumer';

/** The Redis read model of payment intents and invoices, and the consumer that keeps it current. */
@Global()
@Module({
  imports: [GatewayRedisModule],
  providers: [
    {
      provide: ResourceCache,
      inject: [GATEWAY_REDIS, GatewayConfig],
      useFactory: (redis: Redis, config: GatewayConfig) => new ResourceCache(redis, config.KAFKA_NAMESPACE, config.RESOURCE_CACHE_TTL_SECONDS),
    },
    {
      provide: ResourceInvalidationConsumer,
      inject: [ResourceCache, GatewayConfig],
      useFactory: (cache: ResourceCache, config: GatewayConfig) =>
        new ResourceInvalidationConsumer(cache, {
          brokers: config.KAFKA_BROKERS,
          namespace: config.KAFKA_NAMESPACE,
          instanceId: config.INSTANCE_ID,
          sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
        }),
    },
  ],
  exports: [ResourceCache],
})
export class ResourceCacheModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(ResourceInvalidationConsumer) private readonly invalidation: ResourceInvalidationConsumer) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.invalidation.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.invalidation.stop();
  }
}
