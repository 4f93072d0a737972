import type { EventTypeDefinition, EventTypeRegistry, JsonSchema } from './event-type.registry';
import { STREAMS } from './topics';

// Permissive data schemas where nothing more is described yet: the data is an object. Tightening one is a new
// schema version only when it rejects data the old one accepted.
const anyObject = { type: 'object' } as const;

// Session events (payment_intent.*, invoice.*): `data.object` is the resource exactly as the API's GET returns it
// right after the change; payment_intent.succeeded and invoice.paid also carry `data.payment`, what the ledger
// books. Checked whenever present (`object` is not required yet, so v1 accepts what it accepted before).
const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'MoneyString, two decimals.' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;

const paymentIntentObject = {
  type: 'object',
  description: 'The PaymentIntent resource.',
  required: [
    'id', 'object', 'status', 'amount', 'currency', 'fee', 'net_amount', 'payment_method', 'external_ref', 'paid',
    'available_methods', 'checkout_url', 'crypto', 'created_at', 'expires_at', 'paid_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^pi_(live|test)_[A-Za-z0-9]+$' },
    object: { const: 'payment_intent' },
    status: { enum: ['requires_payment_method', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'] },
    amount: money,
    currency: { const: 'USD' },
    fee: money,
    net_amount: money,
    payment_method: { enum: ['togo', 'lahza', 'crypto', null] },
    external_ref: nullableString,
    paid: { type: 'boolean' },
    available_methods: { type: 'array', items: { enum: ['togo', 'lahza', 'crypto'] } },
    checkout_url: { type: 'string', format: 'uri' },
    crypto: {
      type: 'object',
      required: ['address', 'requested_amount', 'received_amount', 'remaining_amount', 'overpayment_amount', 'txid'],
      properties: {
        address: nullableString,
        requested_amount: money,
        received_amount: money,
        remaining_amount: money,
        overpayment_amount: money,
        txid: nullableString,
      },
    },
    created_at: dateTime,
    expires_at: dateTime,
    paid_at: nullableDateTime,
    payment_id: { type: ['string', 'null'], pattern: '^[1-9][0-9]{0,18}$' },
    description: nullableString,
    metadata: { type: 'object' },
  },
} as const;

const invoiceObject = {
  type: 'object',
  description: 'The Invoice resource.',
  required: [
    'id', 'number', 'status', 'environment', 'amount', 'currency', 'fee', 'net', 'external_ref', 'description',
    'checkout_url', 'created_at', 'expires_at', 'paid_at', 'metadata', 'payment',
  ],
  properties: {
    id: { type: 'string', pattern: '^inv_[A-Za-z0-9_]+$' },
    number: { type: 'string', pattern: '^[0-9]+$' },
    status: { enum: ['pending', 'paid', 'failed', 'expired'] },
    environment: { enum: ['live', 'test'] },
    amount: money,
    currency: { const: 'USD' },
    fee: money,
    net: money,
    external_ref: { type: 'string' },
    description: { type: 'string' },
    checkout_url: { type: 'string', format: 'uri' },
    created_at: dateTime,
    expires_at: dateTime,
    paid_at: nullableDateTime,
    metadata: { type: ['object', 'array'] },
    payment: {
      type: ['object', 'null'],
      required: ['reference', 'method', 'payer_name', 'payer_email', 'payer_phone', 'payer_country', 'paid_at'],
      properties: {
        reference: { type: 'string' },
        method: { type: 'string' },
        payer_name: nullableString,
        payer_email: nullableString,
        payer_phone: nullableString,
        payer_country: nullableString,
        paid_at: dateTime,
      },
    },
  },
} as const;

const paymentData = {
  type: 'object',
  description: 'The payment made (on payment_intent.succeeded and invoice.paid).',
  required: ['id', 'method', 'amount', 'fee', 'net', 'currency'],
  properties: {
    id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'Payment id.' },
    method: { type: 'string' },
    amount: money,
    fee: money,
    net: money,
    currency: { const: 'USD' },
  },
} as const;

function sessionData(object: JsonSchema): JsonSchema {
  return { type: 'object', properties: { object, payment: paymentData } };
}

/** The data schema of a public type. */
function dataSchemaOf(type: string): JsonSchema {
  if (type.startsWith('payment_intent.')) return sessionData(paymentIntentObject);
  if (type.startsWith('invoice.')) return sessionData(invoiceObject);
  return anyObject;
}

export const PUBLIC_EVENT_TYPES = {
  'payment_intent.created': 'A payment intent was created.',
  'payment_intent.processing': 'A payment for the intent is being processed.',
  'payment_intent.succeeded': 'The intent was paid in full.',
  'payment_intent.payment_failed': 'A payment attempt for the intent failed.',
  'payment_intent.cancelled': 'The intent was cancelled.',
  'payment_intent.expired': 'The intent expired unpaid.',
  'payment_intent.partially_paid': 'A crypto payment arrived below the amount due.',
  'invoice.created': 'An invoice was created.',
  'invoice.paid': 'The invoice was paid.',
  'invoice.payment_failed': 'A payment attempt for the invoice failed.',
  'invoice.expired': 'The invoice expired unpaid.',
  'refund.created': 'A refund was requested.',
  'refund.completed': 'The refund was completed.',
  'refund.failed': 'The refund failed.',
} as const;

export type PublicEventType = keyof typeof PUBLIC_EVENT_TYPES;

/** Registers the public types (the process-wide registry does it on creation). */
export function registerPublicEventTypes(registry: EventTypeRegistry): void {
  for (const [type, description] of Object.entries(PUBLIC_EVENT_TYPES)) {
    const definition: EventTypeDefinition = {
      version: 1,
      dataSchema: dataSchemaOf(type),
      stream: type.startsWith('refund.') ? STREAMS.refunds : STREAMS.sessions,
      public: true,
      description,
    };
    registry.register(type, definition);
  }
}
