import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { WEBHOOK_EVENT_TYPES } from './create-webhook-endpoint.dto';

/** OpenAPI schemas of the webhook endpoint and delivery resources (3.1 spelling of "or null"). */
const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
const orNull = (schema: SchemaObject): SchemaObject => ({ ...schema, type: [schema.type as string, 'null'] as unknown as SchemaObject['type'] });

export const WEBHOOK_ENDPOINT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'url', 'events', 'environment', 'status', 'disabled_reason', 'disabled_at', 'previous_secret_expires_at', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
    object: { type: 'string', enum: ['webhook_endpoint'] },
    url: { type: 'string', format: 'uri' },
    events: orNull({ type: 'array', items: { type: 'string', enum: WEBHOOK_EVENT_TYPES }, description: 'null = every event type' }),
    environment: { type: 'string', enum: ['live', 'test'] },
    status: { type: 'string', enum: ['enabled', 'disabled'], description: 'disabled: deliveries stopped until the endpoint is enabled again' },
    disabled_reason: orNull({
      type: 'string',
      enum: ['gone', 'failing'],
      description: 'why deliveries stopped: gone = the endpoint answered 410; failing = no successful delivery for 5 days',
    }),
    disabled_at: orNull({ ...dateTime, description: 'when deliveries stopped' }),
    previous_secret_expires_at: orNull({ ...dateTime, description: 'after a roll: until when the previous secret also signs' }),
    created_at: dateTime,
  },
};

export const WEBHOOK_ENDPOINT_WITH_SECRET_SCHEMA: SchemaObject = {
  ...WEBHOOK_ENDPOINT_SCHEMA,
  required: [...(WEBHOOK_ENDPOINT_SCHEMA.required ?? []), 'secret'],
  properties: {
    ...WEBHOOK_ENDPOINT_SCHEMA.properties,
    secret: orNull({
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9]+$',
      description:
        'signing secret; shown only in this answer and its replays while the replay record lasts (IDEMPOTENCY_TTL_SECONDS); ' +
        'null when the Idempotency-Key is used again after that (roll the secret to see a new one)',
    }),
  },
};

export const WEBHOOK_ENDPOINT_LIST_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['object', 'data', 'has_more'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: WEBHOOK_ENDPOINT_SCHEMA },
    has_more: { type: 'boolean' },
  },
};

export const DELETED_WEBHOOK_ENDPOINT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['webhook_endpoint'] },
    deleted: { type: 'boolean', enum: [true] },
  },
};

export const WEBHOOK_DELIVERY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'endpoint_id', 'event_id', 'event_type', 'status', 'attempt_count', 'next_attempt_at', 'created_at', 'attempts'],
  properties: {
    id: { type: 'string', pattern: '^wd_[A-Za-z0-9]+$' },
    object: { type: 'string', enum: ['webhook_delivery'] },
    endpoint_id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempt_count: { type: 'integer', minimum: 0 },
    next_attempt_at: orNull(dateTime),
    created_at: dateTime,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['attempted_at', 'status_code', 'latency_ms', 'response_excerpt', 'error', 'next_attempt_at'],
        properties: {
          attempted_at: dateTime,
          status_code: orNull({ type: 'integer' }),
          latency_ms: orNull({ type: 'integer' }),
          response_excerpt: orNull({ type: 'string', description: 'first 1 KiB of the answer' }),
          error: orNull({ type: 'string', description: 'network error, when there was no answer' }),
          next_attempt_at: orNull({ ...dateTime, description: 'when this failure scheduled the next attempt; null after a success or the last attempt' }),
        },
      },
    },
  },
};

export const WEBHOOK_DELIVERY_LIST_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['object', 'data', 'has_more'],
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: WEBHOOK_DELIVERY_SCHEMA },
    has_more: { type: 'boolean' },
  },
};

export const WEBHOOK_REPLAY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['object', 'endpoint_id', 'from', 'to', 'scheduled'],
  properties: {
    object: { type: 'string', enum: ['webhook_replay'] },
    endpoint_id: { type: 'string' },
    from: dateTime,
    to: dateTime,
    scheduled: { type: 'integer', minimum: 0, description: 'deliveries scheduled' },
  },
};
