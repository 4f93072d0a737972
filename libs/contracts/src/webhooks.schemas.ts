// JSON Schema of the webhook-dispatcher's commands: the dispatcher checks every command against these before it
// acts, with the same limits as the gateway's validation of the delivery routes.
import type { WebhooksCommandName } from './webhooks.contract';

const SCOPE_PROPERTIES = {
  merchant_id: { type: 'string', minLength: 1, maxLength: 64 },
  environment: { type: 'string', enum: ['live', 'test'] },
  endpoint_id: { type: 'string', pattern: '^we_[A-Za-z0-9]{1,64}$' },
} as const;
const SCOPE_REQUIRED = ['merchant_id', 'environment', 'endpoint_id'];

const DELIVERY_ID = { type: 'string', pattern: '^wd_[A-Za-z0-9]{1,64}$' } as const;
/** Read by the dispatcher's time parser; bounded here. */
const TIME = { type: 'string', minLength: 1, maxLength: 64 } as const;

export const WEBHOOKS_COMMAND_SCHEMAS: Record<WebhooksCommandName, { request: object }> = {
  'deliveries.list': {
    request: {
      type: 'object',
      required: SCOPE_REQUIRED,
      properties: { ...SCOPE_PROPERTIES, limit: { type: 'integer', minimum: 1, maximum: 100 }, starting_after: DELIVERY_ID },
    },
  },
  'deliveries.resend': {
    request: { type: 'object', required: [...SCOPE_REQUIRED, 'delivery_id'], properties: { ...SCOPE_PROPERTIES, delivery_id: DELIVERY_ID } },
  },
  'endpoints.replay': {
    request: { type: 'object', required: [...SCOPE_REQUIRED, 'from', 'to'], properties: { ...SCOPE_PROPERTIES, from: TIME, to: TIME } },
  },
  'endpoints.test': { request: { type: 'object', required: SCOPE_REQUIRED, properties: SCOPE_PROPERTIES } },
  'deliveries.of-object': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'object_id'],
      additionalProperties: false,
      properties: {
        merchant_id: SCOPE_PROPERTIES.merchant_id,
        environment: SCOPE_PROPERTIES.environment,
        object_id: { type: 'string', pattern: '^(pi|inv|re)_[A-Za-z0-9_-]{1,96}$' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        starting_after: DELIVERY_ID,
      },
    },
  },
};
