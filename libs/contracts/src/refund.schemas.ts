// JSON Schema of the refunds resources and commands: the one definition behind the API document, the gateway's
// validation, the refunds service's parsing and the refund events' data.
import { IDEMPOTENCY_KEY_SCHEMA, PAYMENT_MAX_AMOUNT } from './command.schemas';
import { EXTERNAL_REF_FILTER_SCHEMA, listFilterProperties, PAYMENT_STATUSES, REFUND_STATUSES } from './list-filters';
import { listSchema } from './list-schema';
import type { RefundsCommandName } from './refunds.contract';

const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'MoneyString, two decimals.' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const PAYMENT_ID = { type: 'string', pattern: '^[1-9][0-9]{0,18}$', description: 'Payment id (numeric-looking).' } as const;
const REFUND_ID = { type: 'string', pattern: '^re_[A-Za-z0-9]{24}$' } as const;

/**
 * A refund's amount: down to one cent (what remains of a payment may be less than the smallest payment), up to a
 * payment's largest (a crypto payment over-paid may exceed what a session asks); never more than remains.
 */
export const REFUND_AMOUNT_SCHEMA = {
  type: 'string',
  pattern: '^\\d+(?:\\.\\d{1,2})?$',
  'x-money': { min: '0.01', max: PAYMENT_MAX_AMOUNT },
  description: 'MoneyString: decimal USD, at most two decimals, from 0.01 up to what remains of the payment, which it defaults to',
  example: '10.00',
} as const;

/** The body of `POST /api/v1/payments/{id}/refunds`: nothing else is accepted. */
export const REFUND_PARAMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    amount: REFUND_AMOUNT_SCHEMA,
    reason: { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const;

export const REFUND_SCHEMA = {
  type: 'object',
  description: 'A refund of all or part of a payment.',
  required: ['id', 'object', 'payment_id', 'amount', 'currency', 'reason', 'status', 'failure_reason', 'environment', 'created_at', 'completed_at'],
  properties: {
    id: REFUND_ID,
    object: { const: 'refund' },
    payment_id: PAYMENT_ID,
    amount: money,
    currency: { const: 'USD' },
    reason: { type: ['string', 'null'] },
    status: { enum: ['pending', 'completed', 'failed'] },
    failure_reason: { type: ['string', 'null'], description: "The provider's reason when the refund failed." },
    environment: { enum: ['live', 'test'] },
    created_at: dateTime,
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const PAYMENT_SCHEMA = {
  type: 'object',
  description: 'A payment (made when an intent or invoice is paid) with its refunds.',
  required: ['id', 'object', 'amount', 'refunded_amount', 'currency', 'status', 'source', 'method', 'fee', 'net', 'environment', 'created_at', 'refunds'],
  properties: {
    id: PAYMENT_ID,
    object: { const: 'payment' },
    amount: money,
    refunded_amount: { ...money, description: 'The sum of its completed refunds.' },
    currency: { const: 'USD' },
    status: { enum: ['succeeded', 'partially_refunded', 'refunded'] },
    source: { type: 'string', description: 'The payment intent (pi_…) or invoice (inv_…) it paid.' },
    method: { type: 'string' },
    fee: { ...money, description: 'Kept on refunds.' },
    net: money,
    environment: { enum: ['live', 'test'] },
    created_at: dateTime,
    refunds: { type: 'array', items: REFUND_SCHEMA, description: 'Oldest first.' },
  },
} as const;

export { listSchema };

/** `data` of refund.created, refund.completed and refund.failed. */
export const REFUND_EVENT_DATA_SCHEMA = {
  type: 'object',
  required: ['object', 'payment'],
  properties: {
    object: REFUND_SCHEMA,
    payment: {
      type: 'object',
      description: 'The payment the refund returns money from; its source decides the webhook surface.',
      required: ['id', 'source', 'method', 'amount', 'currency'],
      properties: { id: PAYMENT_ID, source: { type: 'string' }, method: { type: 'string' }, amount: money, currency: { const: 'USD' } },
    },
  },
} as const;

const SCOPE_PROPERTIES = {
  merchant_id: { type: 'string', minLength: 1, maxLength: 64 },
  environment: { type: 'string', enum: ['live', 'test'] },
} as const;
const LIST_PROPERTIES = {
  ...SCOPE_PROPERTIES,
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  starting_after: { type: 'string', minLength: 1, maxLength: 100 },
} as const;
const BY_ID = { type: 'object', required: ['merchant_id', 'environment', 'id'], properties: { ...SCOPE_PROPERTIES, id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;

export const REFUNDS_COMMAND_SCHEMAS: Record<RefundsCommandName, { request: object; reply: object }> = {
  'refunds.create': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'payment_id', 'idempotency_key', 'params'],
      properties: { ...SCOPE_PROPERTIES, payment_id: { type: 'string', minLength: 1, maxLength: 100 }, idempotency_key: IDEMPOTENCY_KEY_SCHEMA, params: REFUND_PARAMS_SCHEMA },
    },
    reply: REFUND_SCHEMA,
  },
  'refunds.get': { request: BY_ID, reply: REFUND_SCHEMA },
  'refunds.list': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'limit'],
      additionalProperties: false,
      properties: { ...LIST_PROPERTIES, ...listFilterProperties(REFUND_STATUSES, LIST_PROPERTIES.starting_after), payment_id: { type: 'string', minLength: 1, maxLength: 100 } },
    },
    reply: listSchema(REFUND_SCHEMA),
  },
  'payments.get': { request: BY_ID, reply: PAYMENT_SCHEMA },
  'payments.list': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'limit'],
      additionalProperties: false,
      properties: { ...LIST_PROPERTIES, ...listFilterProperties(PAYMENT_STATUSES, LIST_PROPERTIES.starting_after), external_ref: EXTERNAL_REF_FILTER_SCHEMA },
    },
    reply: listSchema(PAYMENT_SCHEMA),
  },
  'refunds.provider-settled': {
    request: { type: 'object', required: ['merchant_id', 'environment', 'refund_id'], properties: { ...SCOPE_PROPERTIES, refund_id: REFUND_ID } },
    reply: REFUND_SCHEMA,
  },
};
