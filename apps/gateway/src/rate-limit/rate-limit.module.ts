import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { AddressLimits } from './address-limits';
import { RateLimiter } from './rate-limiter.service';

@Module({
  imports: [GatewayRedisModule],
  providers: [
    RateLimiter,
    {
      provide: AddressLimits,
      inject: [GATEWAY_REDIS, GatewayConfig],
      useFactory: (redis: Redis, config: GatewayConfig) =>
        new AddressLimits(redis, {
          allowances: {
            sign_in_failures: config.SIGN_IN_FAILURES_PER_ADDRESS,
            mails: config.FORM_MAILS_PER_ADDRESS,
            wallet_sign_in_failures: config.WALLET_CODE_FAILURES_PER_ADDRESS,
            wallet_codes: config.WALLET_CODES_PER_ADDRESS,
          },
          windowSeconds: config.ADDRESS_LIMIT_WINDOW_SECONDS,
          namespace: config.KAFKA_NAMESPACE,
        }),
    },
  ],
  exports: [RateLimiter, AddressLimits],
})
export class RateLimitModule {}
