import { Module } from '@nestjs/common';
import { RefundsClient } from '../../refunds/refunds.client';
import { RefundsModule } from '../../refunds/refunds.module';
import { SessionsClientModule } from '../../sessions-client/sessions-client.module';
import { WebhookEndpointsModule } from '../../webhook-endpoints/webhook-endpoints.module';
import { SessionsClient } from '../../sessions-client/sessions.client';
import { WebhooksClient } from '../../webhook-endpoints/webhooks.client';
import { OBJECT_HISTORY, OwnersHistory } from './object-history';
import { DashboardRefunds } from './refund-action';

/** What the operations views need besides the frame: the API's clients, the refund action, the objects' history. */
@Module({
  imports: [SessionsClientModule, RefundsModule, WebhookEndpointsModule],
  providers: [
    { provide: DashboardRefunds, inject: [RefundsClient], useFactory: (refunds: RefundsClient) => new DashboardRefunds(refunds) },
    { provide: OBJECT_HISTORY, inject: [SessionsClient, WebhooksClient], useFactory: (sessions: SessionsClient, webhooks: WebhooksClient) => new OwnersHistory(sessions, webhooks) },
  ],
  exports: [SessionsClientModule, RefundsModule, DashboardRefunds, OBJECT_HISTORY],
})
export class OperationsModule {}
