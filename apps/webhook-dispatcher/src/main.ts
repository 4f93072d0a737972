import './tracing';
import 'reflect-metadata';
import { bootstrapService } from '@payments/platform';
import { WebhookDispatcherConfig, WEBHOOK_DISPATCHER_DEFAULTS } from './config';
import { WEBHOOKS_MIGRATIONS } from './migrations/webhooks-schema';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

void bootstrapService({
  service: 'webhooks',
  imports: [WebhookDispatcherModule],
  configClass: WebhookDispatcherConfig,
  defaults: WEBHOOK_DISPATCHER_DEFAULTS,
  database: { migrations: WEBHOOKS_MIGRATIONS },
  servesCommands: true,
});
