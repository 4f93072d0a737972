// Webhooks: what the gateway (owner of endpoint settings) publishes for the webhook-dispatcher, and the
// commands the gateway sends the dispatcher for delivery visibility. Plain types, no framework.

export const WEBHOOKS_SERVICE = 'webhooks';

export const WEBHOOKS_COMMANDS = {
  listDeliveries: 'deliveries.list',
  resendDelivery: 'deliveries.resend',
  replayEndpoint: 'endpoints.replay',
  sendTestEvent: 'endpoints.test',
  /** The dashboard: the deliveries, to every endpoint, of the events of one object (intent, invoice, refund). */
  listObjectDeliveries: 'deliveries.of-object',
} as const;

export type WebhooksCommandName = (typeof WEBHOOKS_COMMANDS)[keyof typeof WEBHOOKS_COMMANDS];

export type WebhookEnvironment = 'live' | 'test';
export type WebhookEndpointStatus = 'enabled' | 'disabled';

/**
 * Endpoint settings as the dispatcher keeps them, carried by the gateway's events
 * (`webhook_endpoint.created|updated|deleted` on the `gateway.events` stream, aggregate = endpoint id).
 * Secrets travel and rest encrypted (AES-256-GCM with WEBHOOK_SECRETS_KEY, which gateway and dispatcher share).
 */
export interface WebhookEndpointSnapshot {
  id: string; // we_…
  merchant_id: string;
  environment: WebhookEnvironment;
  url: string;
  /** Event types delivered; null = every public event type. */
  events: string[] | null;
  status: WebhookEndpointStatus;
  /** Current signing secret, encrypted. */
  secret_encrypted: string;
  /** After a roll, the old secret keeps signing (a second v1=) until this time. */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointScope {
  merchant_id: string;
  environment: WebhookEnvironment;
  endpoint_id: string;
}

export interface ListDeliveriesCommand extends EndpointScope {
  limit?: number; // default 50, max 100
  starting_after?: string; // delivery id cursor
}

/** `deliveries.of-object`: newest first; an object of another merchant or environment has none. */
export interface ListObjectDeliveriesCommand {
  merchant_id: string;
  environment: WebhookEnvironment;
  /** The events' aggregate: `pi_…`, `inv_…` or `re_…`. */
  object_id: string;
  limit?: number; // default 50, max 100
  starting_after?: string; // delivery id cursor
}

export interface ResendDeliveryCommand extends EndpointScope {
  delivery_id: string;
}

export interface ReplayEndpointCommand extends EndpointScope {
  from: string; // ISO 8601
  to: string; // ISO 8601
}

export type SendTestEventCommand = EndpointScope;

export interface DeliveryAttemptView {
  attempted_at: string;
  status_code: number | null;
  latency_ms: number | null;
  /** First 1 KiB of the answer, or the network error. */
  response_excerpt: string | null;
  error: string | null;
  /** When this attempt's failure scheduled the next one; null after a success or the last attempt. */
  next_attempt_at: string | null;
}

export interface DeliveryView {
  id: string; // wd_…
  object: 'webhook_delivery';
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  attempts: DeliveryAttemptView[];
}

export interface DeliveryList {
  object: 'list';
  data: DeliveryView[];
  has_more: boolean;
}

/** A delivery of one of an object's events, with the event's sequence and where it went. */
export interface ObjectDeliveryView extends DeliveryView {
  event_sequence: number;
  endpoint_url: string;
}

export interface ObjectDeliveryList {
  object: 'list';
  data: ObjectDeliveryView[];
  has_more: boolean;
}

export interface ReplayResult {
  object: 'webhook_replay';
  endpoint_id: string;
  from: string;
  to: string;
  scheduled: number;
}
