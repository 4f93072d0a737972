import type { InvoiceResource } from '@payments/contracts';
import type { EventEnvelope } from '@payments/events';
import { schemeOf, TEST_EVENT_TYPE, type WebhookScheme } from './webhook-scheme';

/** What a webhook body is rendered from: the public event as it travelled on Kafka. */
export type PublicEvent = Pick<EventEnvelope<unknown>, 'id' | 'type' | 'sequence' | 'environment' | 'occurred_at' | 'data'>;

/** Payment-intent surface WebhookEvent, plus the object's `sequence` and the `environment`. */
export interface IntentWebhookBody {
  id: string;
  type: string;
  /** Unix seconds. */
  created: number;
  environment: 'live' | 'test';
  sequence: number;
  data: { object: unknown };
}

/** Invoice surface webhook event, plus the invoice's `sequence`. */
export interface InvoiceWebhookBody {
  id: string;
  event: string;
  created_at: string;
  sequence: number;
  data: {
    environment: 'live' | 'test';
    invoice_id: string;
    invoice_number: string;
    external_ref: string;
    status: string;
    amount: string;
    fee: string;
    net: string;
    currency: string;
    metadata: unknown;
    payment: InvoiceResource['payment'];
  };
}

export interface RenderedWebhook {
  scheme: WebhookScheme;
  /** The exact bytes sent (and signed) on every attempt. */
  body: string;
}

function objectOf(event: PublicEvent): unknown {
  const data = event.data;
  if (typeof data === 'object' && data !== null && 'object' in data) return (data as { object: unknown }).object;
  // A producer whose data is the resource itself (no `object` wrapper) still gives the merchant the resource.
  return data;
}

function invoiceBody(event: PublicEvent): InvoiceWebhookBody {
  const invoice = objectOf(event) as InvoiceResource | undefined;
  if (typeof invoice !== 'object' || invoice === null || typeof invoice.id !== 'string') {
    throw new Error(`event ${event.id} (${event.type}) carries no invoice in data.object`);
  }
  return {
    id: event.id,
    event: event.type,
    created_at: event.occurred_at,
    sequence: event.sequence,
    data: {
      environment: invoice.environment ?? event.environment,
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      external_ref: invoice.external_ref,
      status: invoice.status,
      amount: invoice.amount,
      fee: invoice.fee,
      net: invoice.net,
      currency: invoice.currency,
      metadata: invoice.metadata,
      payment: invoice.payment,
    },
  };
}

function intentBody(event: PublicEvent): IntentWebhookBody {
  return {
    id: event.id,
    type: event.type,
    created: Math.floor(Date.parse(event.occurred_at) / 1000),
    environment: event.environment,
    sequence: event.sequence,
    data: { object: objectOf(event) },
  };
}

/** The body a merchant receives for a public event, in the scheme of its surface. */
export function renderWebhook(event: PublicEvent): RenderedWebhook {
  const scheme = schemeOf(event);
  const body = scheme === 'intent' ? intentBody(event) : invoiceBody(event);
  return { scheme, body: JSON.stringify(body) };
}

export interface TestEventInput {
  id: string;
  endpoint: { id: string; url: string; environment: 'live' | 'test'; sequence: number };
  occurredAt: Date;
}

/** The signed test event a merchant can send to an endpoint: `webhook_endpoint.test`, payment-intent scheme. */
export function renderTestWebhook(input: TestEventInput): RenderedWebhook {
  const body: IntentWebhookBody = {
    id: input.id,
    type: TEST_EVENT_TYPE,
    created: Math.floor(input.occurredAt.getTime() / 1000),
    environment: input.endpoint.environment,
    sequence: input.endpoint.sequence,
    data: {
      object: {
        id: input.endpoint.id,
        object: 'webhook_endpoint',
        url: input.endpoint.url,
        environment: input.endpoint.environment,
      },
    },
  };
  return { scheme: 'intent', body: JSON.stringify(body) };
}
