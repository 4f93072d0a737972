import { ServiceConfig } from '@payments/config';

/** Settings of the webhook-dispatcher service (environment variables; see README). */
export class WebhookDispatcherConfig extends ServiceConfig {}

export const WEBHOOK_DISPATCHER_DEFAULTS = { PORT: '3004', DB_SCHEMA: 'webhooks' };
