import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** OpenAPI schemas of the resources the sessions service renders (spec: Resources and their fields). */
const money: SchemaObject = { type: 'string', pattern: '^\\d+(?:\\.\\d{1,2})?$', example: '74.00' };
const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
/** OpenAPI 3.1 (JSON Schema 2020-12) spelling of "or null". */
const nullable = (schema: SchemaObject): SchemaObject => ({
  ...schema,
  type: [schema.type as string, 'null'] as unknown as SchemaObject['type'],
  ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
});

export const PAYMENT_INTENT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'status', 'amount', 'currency', 'fee', 'net_amount', 'payment_method', 'external_ref', 'paid', 'available_methods', 'checkout_url', 'crypto', 'created_at', 'expires_at', 'paid_at'],
  properties: {
    id: { type: 'string', pattern: '^pi_(live|test)_[A-Za-z0-9_-]+$' },
    object: { type: 'string', enum: ['payment_intent'] },
    status: { type: 'string', enum: ['requires_payment_method', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'] },
    amount: money,
    currency: { type: 'string', enum: ['USD'] },
    fee: money,
    net_amount: money,
    payment_method: nullable({ type: 'string', enum: ['togo', 'lahza', 'crypto'] }),
    external_ref: nullable({ type: 'string', maxLength: 120 }),
    paid: { type: 'boolean' },
    available_methods: { type: 'array', items: { type: 'string', enum: ['togo', 'lahza', 'crypto'] } },
    checkout_url: { type: 'string', format: 'uri' },
    crypto: {
      type: 'object',
      required: ['address', 'requested_amount', 'received_amount', 'remaining_amount', 'overpayment_amount', 'txid'],
      properties: {
        address: nullable({ type: 'string' }),
        requested_amount: money,
        received_amount: money,
        remaining_amount: money,
        overpayment_amount: money,
        txid: nullable({ type: 'string' }),
      },
    },
    created_at: dateTime,
    expires_at: dateTime,
    paid_at: nullable(dateTime),
    payment_id: nullable({ type: 'string', pattern: '^\\d+$', description: 'numeric payment id, once paid' }),
    description: nullable({ type: 'string', maxLength: 255 }),
    metadata: { type: 'object', additionalProperties: true },
  },
};

const invoicePayment: SchemaObject = {
  type: 'object',
  required: ['reference', 'method', 'paid_at'],
  properties: {
    reference: { type: 'string', pattern: '^\\d+$' },
    method: { type: 'string', enum: ['wallet', 'lahza', 'crypto'] },
    payer_name: nullable({ type: 'string' }),
    payer_email: nullable({ type: 'string' }),
    payer_phone: nullable({ type: 'string', description: 'masked: only the first 4 and last 3 digits shown' }),
    payer_country: nullable({ type: 'string', minLength: 2, maxLength: 2 }),
    paid_at: dateTime,
  },
};

export const INVOICE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'number', 'status', 'environment', 'amount', 'currency', 'fee', 'net', 'external_ref', 'description', 'checkout_url', 'created_at', 'expires_at', 'paid_at', 'metadata', 'payment'],
  properties: {
    id: { type: 'string', pattern: '^inv_(test_)?[A-Za-z0-9_-]+$' },
    number: { type: 'string', pattern: '^\\d+$' },
    status: { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
    environment: { type: 'string', enum: ['live', 'test'] },
    amount: money,
    currency: { type: 'string', enum: ['USD'] },
    fee: money,
    net: money,
    external_ref: { type: 'string' },
    description: { type: 'string' },
    checkout_url: { type: 'string', format: 'uri' },
    created_at: dateTime,
    expires_at: dateTime,
    paid_at: nullable(dateTime),
    metadata: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }] },
    payment: nullable(invoicePayment),
  },
};

export const INVOICE_SIMULATE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'status', 'environment'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
    environment: { type: 'string', enum: ['test'] },
  },
};
