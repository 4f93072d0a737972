/**
 * The two ways a webhook is shaped and signed (spec, Webhook signature verification): invoice events, and refunds
 * of invoice payments, use the invoice surface's body and `Service-*` headers; every other event (payment intents,
 * refunds of intent payments, test events) the payment-intent surface's WebhookEvent and `X-Service-*` headers. A
 * merchant who integrated one surface verifies its refunds the way it verifies its payments.
 */
export type WebhookScheme = 'intent' | 'invoice';

export function schemeOf(event: { readonly type: string; readonly data?: unknown }): WebhookScheme {
  if (event.type.startsWith('invoice.')) return 'invoice';
  if (event.type.startsWith('refund.')) {
    const source = (event.data as { payment?: { source?: unknown } } | undefined)?.payment?.source;
    if (typeof source === 'string' && source.startsWith('inv_')) return 'invoice';
  }
  return 'intent';
}

/** The type of the event a merchant can ask for to check an endpoint (payment-intent scheme). */
export const TEST_EVENT_TYPE = 'webhook_endpoint.test';
