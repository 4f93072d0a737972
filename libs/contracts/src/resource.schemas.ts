// JSON Schema (2020-12, as OpenAPI 3.1 uses it) of the resources the sessions service renders: the one
// definition behind the API document's responses and the validation of the events that carry them.

const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'MoneyString, two decimals.' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;

export const PAYMENT_INTENT_SCHEMA = {
  type: 'object',
  description: 'The PaymentIntent resource.',
  required: [
    'id', 'object', 'status', 'amount', 'currency', 'fee', 'net_amount', 'payment_method', 'external_ref', 'paid',
    'available_methods', 'checkout_url', 'crypto', 'created_at', 'expires_at', 'paid_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^pi_(live|test)_[A-Za-z0-9_-]+$' },
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

export const INVOICE_SCHEMA = {
  type: 'object',
  description: 'The Invoice resource.',
  required: [
    'id', 'number', 'status', 'environment', 'amount', 'currency', 'fee', 'net', 'external_ref', 'description',
    'checkout_url', 'created_at', 'expires_at', 'paid_at', 'metadata', 'payment',
  ],
  properties: {
    id: { type: 'string', pattern: '^inv_(test_)?[A-Za-z0-9_-]+$' },
    number: { type: 'string', pattern: '^[0-9]+$', description: 'Per merchant and environment, from 1001.' },
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
        reference: { type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'The payment id.' },
        method: { enum: ['wallet', 'lahza', 'crypto'] },
        payer_name: nullableString,
        payer_email: nullableString,
        payer_phone: { type: ['string', 'null'], description: 'Masked: only the first 4 and last 3 digits shown.' },
        payer_country: nullableString,
        paid_at: dateTime,
      },
    },
  },
} as const;

/** The answer of an invoice simulate request. */
export const INVOICE_SIMULATE_SCHEMA = {
  type: 'object',
  required: ['id', 'status', 'environment'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['pending', 'paid', 'failed', 'expired'] },
    environment: { const: 'test' },
  },
} as const;

/** A payment as sessions answers it to the refunds service (`payments.find`). */
export const SESSION_PAYMENT_SCHEMA = {
  type: 'object',
  required: ['id', 'source', 'method', 'amount', 'fee', 'net', 'currency', 'paid_at'],
  properties: {
    id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$' },
    source: { type: 'string' },
    method: { type: 'string' },
    amount: money,
    fee: money,
    net: money,
    currency: { const: 'USD' },
    paid_at: dateTime,
  },
} as const;
