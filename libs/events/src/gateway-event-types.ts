import { sharedDefinitions, type JsonSchema, type RegisteredEventType } from './event-type';
import { STREAMS } from './topics';

const dateTime = { type: 'string', format: 'date-time' } as const;
const encrypted = { type: 'string', minLength: 1, description: 'AES-256-GCM ciphertext (key: WEBHOOK_SECRETS_KEY).' } as const;

/**
 * `data` of the webhook_endpoint.* events: the endpoint's settings as the webhook-dispatcher keeps them
 * (WebhookEndpointSnapshot in @payments/contracts). Secrets are only ever carried encrypted.
 */
export const WEBHOOK_ENDPOINT_SNAPSHOT_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Webhook endpoint settings after the change.',
  required: [
    'id', 'merchant_id', 'environment', 'url', 'events', 'status', 'secret_encrypted', 'previous_secret_encrypted',
    'previous_secret_expires_at', 'created_at', 'updated_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
    merchant_id: { type: 'string', minLength: 1 },
    environment: { enum: ['live', 'test'] },
    url: { type: 'string', minLength: 1 },
    events: {
      type: ['array', 'null'],
      items: { type: 'string' },
      uniqueItems: true,
      description: 'Event types delivered; null = every public type.',
    },
    status: { enum: ['enabled', 'disabled'], description: 'A deleted endpoint is sent with status disabled.' },
    secret_encrypted: encrypted,
    previous_secret_encrypted: { ...encrypted, type: ['string', 'null'] },
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: dateTime,
    updated_at: dateTime,
  },
};

export const GATEWAY_EVENT_TYPES = {
  'webhook_endpoint.created': 'A merchant added a webhook endpoint.',
  'webhook_endpoint.updated': 'A webhook endpoint changed (secret rolled, re-enabled, ...).',
  'webhook_endpoint.deleted': 'A merchant deleted a webhook endpoint; nothing more is delivered to it.',
} as const;

export type GatewayEventType = keyof typeof GATEWAY_EVENT_TYPES;

/** The gateway's internal types, as definitions. */
export const GATEWAY_EVENT_DEFINITIONS: readonly RegisteredEventType[] = sharedDefinitions(GATEWAY_EVENT_TYPES, {
  dataSchema: WEBHOOK_ENDPOINT_SNAPSHOT_SCHEMA,
  stream: STREAMS.gateway,
});
