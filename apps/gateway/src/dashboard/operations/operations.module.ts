import { Module } from '@nestjs/common';
import { RefundsClient } from '../../refunds/refunds.client';
import { RefundsModule } from '../../refunds/refunds.module';
import { SessionsClientModule } from '../../sessions-client/sessions-client.module';
import { WebhookEndpointsModule } from '../../webhook-endpoints/webhook-endpoints.module';
import { WebhookEndpointsService } from '../../webhook-endpoints/webhook-endpoints.service';
import { WebhooksClient } from '../../webhook-endpoints/webhooks.client';
import { DELIVERY_SOURCE, NO_HISTORY, OBJECT_HISTORY, type DeliverySource } from './object-history';
import { DashboardRefunds } from './refund-action';

/** What the operations views need besides the frame: the API's clients, the refund action, the history ports. */
@Module({
  imports: [SessionsClientModule, RefundsModule, WebhookEndpointsModule],
  providers: [
    { provide: DashboardRefunds, inject: [RefundsClient], useFactory: (refunds: RefundsClient) => new DashboardRefunds(refunds) },
    // No timeline command yet: pages say the history is not available (replaced when the owners have one).
    { provide: OBJECT_HISTORY, useValue: NO_HISTORY },
    {
      provide: DELIVERY_SOURCE,
      inject: [WebhookEndpointsService, WebhooksClient],
      useFactory: (endpoints: WebhookEndpointsService, webhooks: WebhooksClient): DeliverySource => ({
        endpointIds: async (scope) => (await endpoints.list({ merchantId: scope.merchant_id, environment: scope.environment })).data.map((endpoint) => endpoint.id),
        deliveries: async (scope, endpointId, limit, caller) => (await webhooks.listDeliveries({ ...scope, endpoint_id: endpointId, limit }, caller)).data,
      }),
    },
  ],
  exports: [SessionsClientModule, RefundsModule, DashboardRefunds, OBJECT_HISTORY, DELIVERY_SOURCE],
})
export class OperationsModule {}
