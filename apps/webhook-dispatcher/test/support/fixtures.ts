// Envelopes as the sessions service, the refunds service and the gateway publish them.
import type { InvoiceResource, PaymentIntentResource, WebhookEndpointSnapshot } from '@payments/contracts';
import { newEnvelope, type EventEnvelope, type GatewayEventType } from '@payments/events';
import { randomBase62 } from '@payments/ids';
import { DEVELOPMENT_WEBHOOK_SECRETS_KEY, encryptSecret, newWebhookSecret, parseSecretsKey } from '@payments/webhooks';

export const SECRETS_KEY = parseSecretsKey(DEVELOPMENT_WEBHOOK_SECRETS_KEY);

export type Env = 'live' | 'test';

export function intentResource(env: Env, overrides: Partial<PaymentIntentResource> = {}): PaymentIntentResource {
  const id = `pi_${env}_${randomBase62()}`;
  return {
    id,
    object: 'payment_intent',
    status: 'requires_payment_method',
    amount: '74.00',
    currency: 'USD',
    fee: '0.00',
    net_amount: '74.00',
    payment_method: null,
    external_ref: 'order-1',
    paid: false,
    available_methods: ['togo', 'lahza', 'crypto'],
    checkout_url: `https://pay.example.test/checkout/${id}`,
    crypto: {
      address: null,
      requested_amount: '74.00',
      received_amount: '0.00',
      remaining_amount: '74.00',
      overpayment_amount: '0.00',
      txid: null,
    },
    created_at: '2025-01-01T10:00:00.000Z',
    expires_at: '2025-01-01T10:30:00.000Z',
    paid_at: null,
    payment_id: null,
    description: null,
    metadata: {},
    ...overrides,
  };
}

export function intentEvent(
  merchantId: string,
  env: Env,
  options: { type?: string; sequence?: number; object?: PaymentIntentResource } = {},
): EventEnvelope<{ object: PaymentIntentResource }> {
  const object = options.object ?? intentResource(env);
  return newEnvelope({
    type: options.type ?? 'payment_intent.created',
    aggregate_id: object.id,
    aggregate_type: 'payment_intent',
    sequence: options.sequence ?? 1,
    merchant_id: merchantId,
    environment: env,
    correlation_id: `req_${randomBase62(12)}`,
    data: { object },
  });
}

export function paidInvoice(env: Env): InvoiceResource {
  const id = env === 'test' ? `inv_test_${randomBase62()}` : `inv_${randomBase62()}`;
  return {
    id,
    number: '1001',
    status: 'paid',
    environment: env,
    amount: '74.00',
    currency: 'USD',
    fee: '0.37',
    net: '73.63',
    external_ref: 'order-7',
    description: 'Two mugs',
    checkout_url: `https://pay.example.test/checkout/${id}`,
    created_at: '2025-01-01T10:00:00.000Z',
    expires_at: '2025-01-02T10:00:00.000Z',
    paid_at: '2025-01-01T10:05:00.000Z',
    metadata: { cart: '7' },
    payment: {
      reference: '1234567890123',
      method: 'wallet',
      payer_name: 'Ada',
      payer_email: 'ada@example.com',
      payer_phone: '+228*****89',
      payer_country: 'TG',
      paid_at: '2025-01-01T10:05:00.000Z',
    },
  };
}

export function invoicePaidEvent(merchantId: string, env: Env, invoice = paidInvoice(env)): EventEnvelope<Record<string, unknown>> {
  return newEnvelope({
    type: 'invoice.paid',
    aggregate_id: invoice.id,
    aggregate_type: 'invoice',
    sequence: 2,
    merchant_id: merchantId,
    environment: env,
    correlation_id: `req_${randomBase62(12)}`,
    data: {
      object: invoice,
      payment: { id: invoice.payment!.reference, method: 'wallet', amount: invoice.amount, fee: invoice.fee, net: invoice.net, currency: 'USD' },
    },
  });
}

/** An endpoint as the gateway keeps it, with its plaintext secret for the receiver. */
export interface TestEndpoint {
  snapshot: WebhookEndpointSnapshot;
  secret: string;
  sequence: number;
}

export function newEndpoint(merchantId: string, env: Env, url: string, events: string[] | null = null, key: Buffer = SECRETS_KEY): TestEndpoint {
  const secret = newWebhookSecret();
  const now = new Date().toISOString();
  return {
    secret,
    sequence: 1,
    snapshot: {
      id: `we_${randomBase62()}`,
      merchant_id: merchantId,
      environment: env,
      url,
      events,
      status: 'enabled',
      secret_encrypted: encryptSecret(secret, key),
      previous_secret_encrypted: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    },
  };
}

/** The gateway's event of the endpoint's current state. */
export function endpointEvent(endpoint: TestEndpoint, type: GatewayEventType = 'webhook_endpoint.created'): EventEnvelope<WebhookEndpointSnapshot> {
  return newEnvelope({
    type,
    aggregate_id: endpoint.snapshot.id,
    aggregate_type: 'webhook_endpoint',
    sequence: endpoint.sequence,
    merchant_id: endpoint.snapshot.merchant_id,
    environment: endpoint.snapshot.environment,
    correlation_id: `req_${randomBase62(12)}`,
    data: endpoint.snapshot,
  });
}

/** The endpoint after a change (next version). */
export function changed(endpoint: TestEndpoint, change: Partial<WebhookEndpointSnapshot>, secret = endpoint.secret): TestEndpoint {
  return {
    secret,
    sequence: endpoint.sequence + 1,
    snapshot: { ...endpoint.snapshot, ...change, updated_at: new Date().toISOString() },
  };
}

/** A secret roll: a new current secret, the old one signing until `previousExpiresAt`. */
export function rolled(endpoint: TestEndpoint, previousExpiresAt: Date): TestEndpoint {
  const secret = newWebhookSecret();
  return changed(
    endpoint,
    {
      secret_encrypted: encryptSecret(secret, SECRETS_KEY),
      previous_secret_encrypted: endpoint.snapshot.secret_encrypted,
      previous_secret_expires_at: previousExpiresAt.toISOString(),
    },
    secret,
  );
}
