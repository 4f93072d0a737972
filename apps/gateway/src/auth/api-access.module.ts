import { Module, OnModuleInit } from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { GatewayConfig, standardFeeSchedule } from '../config';
import { MerchantsModule } from '../merchants/merchants.module';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ApiAccessGuard } from './api-access.guard';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { ApiKeyDirectory } from './api-key.directory';
import { KeyUsageTracker } from './key-usage.tracker';

/** API keys and rate limits on every /api/v1 route (a hook at the start of each request, and a global guard). */
@Module({
  imports: [MerchantsModule, RateLimitModule],
  providers: [
    {
      provide: ApiKeyAuthenticator,
      inject: [MerchantsRepository, GatewayConfig],
      useFactory: (repository: MerchantsRepository, config: GatewayConfig) =>
        new ApiKeyAuthenticator(new ApiKeyDirectory(repository, config.API_KEY_CACHE_MS), new KeyUsageTracker(repository), standardFeeSchedule(config)),
    },
    ApiAccessGuard,
    { provide: APP_GUARD, useExisting: ApiAccessGuard },
  ],
  exports: [ApiAccessGuard, ApiKeyAuthenticator],
})
export class ApiAccessModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly guard: ApiAccessGuard,
  ) {}

  onModuleInit(): void {
    // No HTTP adapter in a standalone context (e.g. a script): the guard alone covers routes.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify) this.guard.register(fastify);
  }
}
