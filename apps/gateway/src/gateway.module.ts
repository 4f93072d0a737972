import { Module } from '@nestjs/common';
import { ApiAccessModule } from './auth/api-access.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { MerchantsModule } from './merchants/merchants.module';
import { ResourceCacheModule } from './resource-cache/resource-cache.module';
import { ServicesModule } from './services/services.module';
import { SessionsApiModule } from './sessions-api/sessions-api.module';
import { WebhookEndpointsModule } from './webhook-endpoints/webhook-endpoints.module';

@Module({
  imports: [ServicesModule, ResourceCacheModule, MerchantsModule, ApiAccessModule, IdempotencyModule, SessionsApiModule, WebhookEndpointsModule],
})
export class GatewayModule {}
