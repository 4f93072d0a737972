import { Module } from '@nestjs/common';
import { ApiAccessModule } from './auth/api-access.module';
import { CheckoutModule } from './checkout/checkout.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { RefundsModule } from './refunds/refunds.module';
import { MerchantsModule } from './merchants/merchants.module';
import { ResourceCacheModule } from './resource-cache/resource-cache.module';
import { CommandClientsModule } from './command-clients/command-clients.module';
import { SessionsClientModule } from './sessions-client/sessions-client.module';
import { WebhookEndpointsModule } from './webhook-endpoints/webhook-endpoints.module';
import { BalanceModule } from './balance/balance.module';
import { MailModule } from './mail/mail.module';
import { DashboardModule } from './dashboard/dashboard.module';

@Module({
  imports: [CommandClientsModule, ResourceCacheModule, MerchantsModule, ApiAccessModule, IdempotencyModule, SessionsClientModule, WebhookEndpointsModule, BalanceModule, RefundsModule, CheckoutModule, MailModule, DashboardModule],
})
export class GatewayModule {}
