import { INVOICE_SCHEMA, PAYMENT_INTENT_SCHEMA, REFUND_EVENT_DATA_SCHEMA } from '@payments/contracts';
import type { JsonSchema, RegisteredEventType } from './event-type';
import { STREAMS } from './topics';

// Permissive data schemas where nothing more is described yet: the data is an object. Tightening one is a new
// schema version only when it rejects data the old one accepted.
const anyObject = { type: 'object' } as const;

// Session events (payment_intent.*, invoice.*): `data.object` is the resource exactly as the API's GET returns it
// right after the change; payment_intent.succeeded and invoice.paid also carry `data.payment`, what the ledger
// books. Checked whenever present (`object` is not required yet, so v1 accepts what it accepted before).
const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'MoneyString, two decimals.' } as const;

const paymentData = {
  type: 'object',
  description: 'The payment made (on payment_intent.succeeded and invoice.paid).',
  required: ['id', 'method', 'amount', 'fee', 'net', 'currency'],
  properties: {
    id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'Payment id.' },
    method: { type: 'string' },
    amount: money,
    fee: money,
    fee_rate_bps: { type: 'integer', minimum: 0, maximum: 10000, description: 'The rate the fee was computed at (basis points, half-up to the cent).' },
    net: money,
    currency: { const: 'USD' },
    wallet_id: { type: ['string', 'null'], pattern: '^wal_(live|test)_[A-Za-z0-9]{24}$', description: 'The customer wallet debited, on a wallet payment (the ledger posted it when paid).' },
  },
} as const;

function sessionData(object: JsonSchema): JsonSchema {
  return { type: 'object', properties: { object, payment: paymentData } };
}

/** The data schema of a public type. */
function dataSchemaOf(type: string): JsonSchema {
  if (type.startsWith('payment_intent.')) return sessionData(PAYMENT_INTENT_SCHEMA);
  if (type.startsWith('invoice.')) return sessionData(INVOICE_SCHEMA);
  if (type.startsWith('refund.')) return REFUND_EVENT_DATA_SCHEMA;
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
  'payment_intent.crypto_transfer_after_close':
    'A crypto transfer arrived for an intent already paid or cancelled: recorded on the intent (data.object.crypto), never a second payment and not booked; the platform returns it to the sender.',
  'invoice.created': 'An invoice was created.',
  'invoice.paid': 'The invoice was paid.',
  'invoice.payment_failed': 'A payment attempt for the invoice failed.',
  'invoice.expired': 'The invoice expired unpaid.',
  'refund.created': 'A refund was requested.',
  'refund.completed': 'The refund was completed.',
  'refund.failed': 'The refund failed.',
} as const;

export type PublicEventType = keyof typeof PUBLIC_EVENT_TYPES;

/** The public types (sent to merchants as webhooks), as definitions. */
export const PUBLIC_EVENT_DEFINITIONS: readonly RegisteredEventType[] = Object.entries(PUBLIC_EVENT_TYPES).map(([type, description]) => ({
  type,
  version: 1,
  dataSchema: dataSchemaOf(type),
  stream: type.startsWith('refund.') ? STREAMS.refunds : STREAMS.sessions,
  public: true,
  description,
}));
