/**
 * The two ways a webhook is shaped and signed (spec, Webhook signature verification; DESIGN §6): invoice events use
 * the invoice surface's body and `Service-*` headers; every other event (payment intents, refunds of any payment,
 * test events) the payment-intent surface's WebhookEvent and `X-Service-*` headers.
 */
export type WebhookScheme = 'intent' | 'invoice';

export function schemeOf(event: { readonly type: string }): WebhookScheme {
  return event.type.startsWith('invoice.') ? 'invoice' : 'intent';
}

/** The type of the event a merchant can ask for to check an endpoint (payment-intent scheme). */
export const TEST_EVENT_TYPE = 'webhook_endpoint.test';
