import { Module } from '@nestjs/common';
import { MerchantsModule } from '../../merchants/merchants.module';
import { WebhookEndpointsModule } from '../../webhook-endpoints/webhook-endpoints.module';

/** What the developer page acts through: the API's own account and webhook endpoint services. */
@Module({
  imports: [MerchantsModule, WebhookEndpointsModule],
  exports: [MerchantsModule, WebhookEndpointsModule],
})
export class DevelopersModule {}
