import { Module } from '@nestjs/common';
import { GatewayRedisModule } from '../redis/gateway-redis.module';
import { RateLimiter } from './rate-limiter.service';

@Module({ imports: [GatewayRedisModule], providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
