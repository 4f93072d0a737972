import { sharedDefinitions, type JsonSchema, type RegisteredEventType } from './event-type';
import { STREAMS } from './topics';

/** Why the webhook-dispatcher stopped delivering to an endpoint on its own. */
export type EndpointDisabledReason = 'gone' | 'failing';

/** `data` of `webhook_endpoint.auto_disabled`. */
export interface EndpointAutoDisabled {
  /** `gone`: it answered 410; `failing`: no success for WEBHOOK_DISABLE_AFTER_MS (5 days). */
  reason: EndpointDisabledReason;
  disabled_at: string;
}

export const ENDPOINT_AUTO_DISABLED_SCHEMA: JsonSchema = {
  type: 'object',
  description: "The dispatcher stopped delivering to the endpoint. The envelope's sequence is the endpoint version it acted on.",
  required: ['reason', 'disabled_at'],
  additionalProperties: false,
  properties: {
    reason: { enum: ['gone', 'failing'], description: 'gone: the endpoint answered 410; failing: no success for 5 days.' },
    disabled_at: { type: 'string', format: 'date-time' },
  },
};

export const WEBHOOK_EVENT_TYPES = {
  'webhook_endpoint.auto_disabled': 'The webhook-dispatcher disabled an endpoint (410, or failing for 5 days); re-enabling it is the merchant\'s call.',
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;

/** The dispatcher's internal types, as definitions. */
export const WEBHOOK_EVENT_DEFINITIONS: readonly RegisteredEventType[] = sharedDefinitions(WEBHOOK_EVENT_TYPES, {
  dataSchema: ENDPOINT_AUTO_DISABLED_SCHEMA,
  stream: STREAMS.webhooks,
});
