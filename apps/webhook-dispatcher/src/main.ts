import 'reflect-metadata';
import { MessagingTables1763769600000 } from '@payments/messaging';
import { bootstrapService } from '@payments/platform';
import { WebhookDispatcherConfig, WEBHOOK_DISPATCHER_DEFAULTS } from './config';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

void bootstrapService({
  service: 'webhooks',
  imports: [WebhookDispatcherModule],
  configClass: WebhookDispatcherConfig,
  defaults: WEBHOOK_DISPATCHER_DEFAULTS,
  database: { migrations: [MessagingTables1763769600000] },
  servesCommands: true,
});
