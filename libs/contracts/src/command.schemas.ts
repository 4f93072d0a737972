// JSON Schema of every command's request (draft-07, as the resource schemas): the one definition of each field
// and limit. The gateway's DTOs take their limits and OpenAPI entries from these fragments, and the owner
// validates the command body against them (validateCommand), so the two can no longer disagree.
import { INVOICE_SCHEMA, INVOICE_SIMULATE_SCHEMA, PAYMENT_INTENT_SCHEMA, SESSION_PAYMENT_SCHEMA } from './resource.schemas';
import { EXTERNAL_REF_FILTER_SCHEMA, INVOICE_STATUSES, listFilterProperties, PAYMENT_INTENT_STATUSES } from './list-filters';
import { listSchema } from './list-schema';
import { formatMoney, MAX_PAYMENT_CENTS } from '@payments/money';
import type { SessionsCommandName } from './sessions.contract';

export const INTENT_METHODS = ['togo', 'lahza', 'crypto'] as const;
/** On the invoice surface a service-balance payment is `wallet` (`togo` is accepted as its other name). */
export const INVOICE_METHODS = ['wallet', 'togo', 'lahza', 'crypto'] as const;

/** The largest amount a payment or a refund carries (MAX_PAYMENT_CENTS): a crypto payment is what was received. */
export const PAYMENT_MAX_AMOUNT = formatMoney(MAX_PAYMENT_CENTS);

/** The spec's MoneyString pattern; the amount's bounds are in `x-money` (a decimal range JSON Schema cannot state). */
export const MONEY_INPUT_SCHEMA = {
  type: 'string',
  pattern: '^\\d+(?:\\.\\d{1,2})?$',
  'x-money': { min: '0.50', max: '999999.99' },
  description: 'MoneyString: decimal USD, at most two decimals, 0.50 to 999999.99',
  example: '74.00',
} as const;

/** success_url and cancel_url. */
export const HTTPS_URL_SCHEMA = { type: 'string', format: 'uri', pattern: '^https://', maxLength: 2048 } as const;

/** The spec's Customer: every field optional, nothing else. */
export const CUSTOMER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 160 },
    // 254: the longest address SMTP can deliver to (RFC 5321 path limit).
    email: { type: 'string', format: 'email', maxLength: 254 },
    phone: { type: 'string', maxLength: 40, description: 'free text, international format' },
    city: { type: 'string', maxLength: 120 },
    country: { type: 'string', minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', description: 'two-letter country code' },
  },
} as const;

/** DESIGN §5 Validation: free-form, at most 50 keys of 1 to 40 characters, string values of at most 500. */
export const METADATA_SCHEMA = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { maxLength: 500 },
  description: 'up to 50 keys of at most 40 characters; string values up to 500',
} as const;

/** expires_in, with the surface's default. */
export function expiresInSchema(defaultSeconds: number) {
  return { type: 'integer', minimum: 300, maximum: 86400, default: defaultSeconds, description: 'seconds' } as const;
}

/** Fields payment intents and invoices share. */
export const SESSION_PARAMS_PROPERTIES = {
  amount: MONEY_INPUT_SCHEMA,
  currency: { type: 'string', enum: ['USD'] },
  external_ref: { type: 'string', maxLength: 120 },
  description: { type: 'string', maxLength: 255 },
  success_url: HTTPS_URL_SCHEMA,
  cancel_url: HTTPS_URL_SCHEMA,
  customer: CUSTOMER_SCHEMA,
  metadata: METADATA_SCHEMA,
} as const;

function methodsSchema(methods: readonly string[]) {
  return { type: 'array', minItems: 1, maxItems: methods.length, uniqueItems: true, items: { type: 'string', enum: methods } } as const;
}

/** createPaymentIntent's body: extra top-level fields are allowed (the spec says so) and not kept. */
export const PAYMENT_INTENT_PARAMS_SCHEMA = {
  type: 'object',
  required: ['amount', 'currency'],
  properties: { ...SESSION_PARAMS_PROPERTIES, methods: methodsSchema(INTENT_METHODS), expires_in: expiresInSchema(1800) },
} as const;

/** The invoice create body: unknown top-level fields are refused on this surface (DESIGN §5). */
export const INVOICE_PARAMS_SCHEMA = {
  type: 'object',
  required: ['amount', 'currency'],
  additionalProperties: false,
  properties: { ...SESSION_PARAMS_PROPERTIES, methods: methodsSchema(INVOICE_METHODS), expires_in: expiresInSchema(86400) },
} as const;

export const SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA = {
  type: 'object',
  required: ['result'],
  additionalProperties: false,
  properties: {
    result: { type: 'string', enum: ['succeeded', 'failed'] },
    method: { type: 'string', enum: INTENT_METHODS, description: 'defaults to the first available method' },
  },
} as const;

export const SIMULATE_INVOICE_PARAMS_SCHEMA = {
  type: 'object',
  required: ['result'],
  additionalProperties: false,
  properties: {
    result: { type: 'string', enum: ['paid', 'failed', 'expired'] },
    method: { type: 'string', enum: INVOICE_METHODS, default: 'wallet' },
  },
} as const;

export const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: 190 } as const;

// The envelope of every sessions command: whose resource, in which environment (the API key's).
const SCOPE_PROPERTIES = {
  merchant_id: { type: 'string', minLength: 1, maxLength: 64 },
  environment: { type: 'string', enum: ['live', 'test'] },
} as const;
const OBJECT_ID = { type: 'string', minLength: 1, maxLength: 100 } as const;
const WALLET_ID = { type: 'string', pattern: '^wal_(live|test)_[A-Za-z0-9]{24}$' } as const;
const REFUND_ID = { type: 'string', pattern: '^re_[0-9A-Za-z]{1,64}$' } as const;
const PROVIDER_REFUND_REPLY = {
  type: 'object',
  required: ['refund_id', 'status', 'reason'],
  properties: { refund_id: REFUND_ID, status: { type: 'string', enum: ['pending', 'completed', 'failed'] }, reason: { type: ['string', 'null'] } },
} as const;

const MERCHANT_SETTINGS_SCHEMA = {
  type: 'object',
  required: ['enabled_methods'],
  properties: {
    enabled_methods: { type: 'array', items: { type: 'string' } },
    fee_overrides: { type: 'object', additionalProperties: { type: 'number' } },
  },
} as const;

function createCommand(params: object) {
  return {
    type: 'object',
    required: ['merchant_id', 'environment', 'idempotency_key', 'merchant', 'params'],
    properties: { ...SCOPE_PROPERTIES, idempotency_key: IDEMPOTENCY_KEY_SCHEMA, merchant: MERCHANT_SETTINGS_SCHEMA, params },
  } as const;
}

const OBJECT_COMMAND = { type: 'object', required: ['merchant_id', 'environment', 'id'], properties: { ...SCOPE_PROPERTIES, id: OBJECT_ID } } as const;

function simulateCommand(params: typeof SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA | typeof SIMULATE_INVOICE_PARAMS_SCHEMA) {
  return {
    type: 'object',
    required: ['merchant_id', 'environment', 'id', ...params.required],
    properties: { ...SCOPE_PROPERTIES, id: OBJECT_ID, ...params.properties },
  } as const;
}

/** A list of sessions: scope, the filters, paging; nothing else (a misspelt filter is refused, not ignored). */
function listCommand(statuses: readonly string[], idPattern: string) {
  return {
    type: 'object',
    required: ['merchant_id', 'environment', 'limit'],
    additionalProperties: false,
    properties: {
      ...SCOPE_PROPERTIES,
      ...listFilterProperties(statuses, { type: 'string', pattern: idPattern, maxLength: 100 }),
      external_ref: EXTERNAL_REF_FILTER_SCHEMA,
    },
  } as const;
}

const SESSION_EVENT_SCHEMA = {
  type: 'object',
  required: ['object', 'sequence', 'type', 'name', 'occurred_at'],
  properties: {
    object: { const: 'session_event' },
    sequence: { type: 'integer', minimum: 1 },
    type: { type: ['string', 'null'] },
    name: { type: 'string' },
    occurred_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** Each sessions command's request and reply. */
export const SESSIONS_COMMAND_SCHEMAS: Record<SessionsCommandName, { request: object; reply: object }> = {
  'payment-intents.create': { request: createCommand(PAYMENT_INTENT_PARAMS_SCHEMA), reply: PAYMENT_INTENT_SCHEMA },
  'payment-intents.get': { request: OBJECT_COMMAND, reply: PAYMENT_INTENT_SCHEMA },
  'payment-intents.simulate': { request: simulateCommand(SIMULATE_PAYMENT_INTENT_PARAMS_SCHEMA), reply: PAYMENT_INTENT_SCHEMA },
  'payment-intents.cancel': { request: OBJECT_COMMAND, reply: PAYMENT_INTENT_SCHEMA },
  'invoices.create': { request: createCommand(INVOICE_PARAMS_SCHEMA), reply: INVOICE_SCHEMA },
  'invoices.get': { request: OBJECT_COMMAND, reply: INVOICE_SCHEMA },
  'invoices.simulate': { request: simulateCommand(SIMULATE_INVOICE_PARAMS_SCHEMA), reply: INVOICE_SIMULATE_SCHEMA },
  'payments.find': { request: OBJECT_COMMAND, reply: SESSION_PAYMENT_SCHEMA },
  'payment-intents.crypto-transfer': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'id', 'amount'],
      properties: {
        ...SCOPE_PROPERTIES,
        id: OBJECT_ID,
        amount: { type: 'string', pattern: MONEY_INPUT_SCHEMA.pattern, 'x-money': { min: '0.01', max: '999999.99' } },
      },
    },
    reply: PAYMENT_INTENT_SCHEMA,
  },
  'payment-intents.crypto-address': { request: OBJECT_COMMAND, reply: PAYMENT_INTENT_SCHEMA },
  'checkout.start-provider-payment': {
    request: { type: 'object', required: ['id', 'method'], properties: { id: OBJECT_ID, method: { type: 'string', enum: ['lahza'] } } },
    reply: { type: 'object', required: ['redirect_url'], properties: { redirect_url: { type: 'string' } } },
  },
  'checkout.confirm-provider-payment': {
    request: {
      type: 'object',
      required: ['id', 'reference'],
      properties: { id: OBJECT_ID, reference: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' } },
    },
    reply: { type: 'object', required: ['id', 'outcome', 'late'] },
  },
  'checkout.provider-notification': {
    request: {
      type: 'object',
      required: ['provider', 'body', 'signature'],
      properties: {
        provider: { type: 'string', enum: ['lahza'] },
        body: { type: 'string', maxLength: 90000 },
        signature: { type: ['string', 'null'], maxLength: 512 },
      },
    },
    reply: {
      type: 'object',
      required: ['accepted'],
      properties: {
        accepted: { type: 'boolean' },
        refunds: {
          type: 'array',
          items: { type: 'object', required: ['refund_id', 'merchant_id', 'environment'], properties: { ...SCOPE_PROPERTIES, refund_id: REFUND_ID } },
        },
      },
    },
  },
  'payments.refund-at-provider': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'payment_id', 'refund_id', 'amount'],
      properties: {
        ...SCOPE_PROPERTIES,
        payment_id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$' },
        refund_id: REFUND_ID,
        amount: { type: 'string', pattern: MONEY_INPUT_SCHEMA.pattern, 'x-money': { min: '0.01', max: PAYMENT_MAX_AMOUNT } },
      },
    },
    reply: PROVIDER_REFUND_REPLY,
  },
  'payments.provider-refund-status': {
    request: { type: 'object', required: ['merchant_id', 'environment', 'refund_id'], properties: { ...SCOPE_PROPERTIES, refund_id: REFUND_ID } },
    reply: PROVIDER_REFUND_REPLY,
  },
  'payment-intents.list': { request: listCommand(PAYMENT_INTENT_STATUSES, '^pi_[A-Za-z0-9_-]{1,96}$'), reply: listSchema(PAYMENT_INTENT_SCHEMA) },
  'invoices.list': { request: listCommand(INVOICE_STATUSES, '^inv_[A-Za-z0-9_-]{1,96}$'), reply: listSchema(INVOICE_SCHEMA) },
  'session-events.list': {
    request: { type: 'object', required: ['merchant_id', 'environment', 'id'], additionalProperties: false, properties: { ...SCOPE_PROPERTIES, id: OBJECT_ID } },
    reply: listSchema(SESSION_EVENT_SCHEMA),
  },
  'checkout.get': {
    request: { type: 'object', required: ['id'], properties: { id: OBJECT_ID } },
    reply: { type: 'object', required: ['kind', 'merchant_id', 'environment', 'session'] },
  },
  'checkout.pay-from-wallet': {
    request: {
      type: 'object',
      required: ['id', 'wallet_id', 'payer'],
      additionalProperties: false,
      properties: {
        id: OBJECT_ID,
        wallet_id: WALLET_ID,
        payer: {
          type: 'object',
          required: ['name', 'email', 'phone', 'country'],
          additionalProperties: false,
          properties: {
            name: { type: ['string', 'null'], maxLength: 160 },
            email: { type: 'string', format: 'email', maxLength: 254 },
            phone: { type: ['string', 'null'], maxLength: 40 },
            country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
          },
        },
      },
    },
    reply: { type: 'object', required: ['id', 'outcome', 'reason', 'balance', 'success_url'] },
  },
  'wallet-top-ups.start': {
    request: {
      type: 'object',
      required: ['wallet_id', 'environment', 'email', 'amount'],
      additionalProperties: false,
      properties: {
        wallet_id: WALLET_ID,
        environment: SCOPE_PROPERTIES.environment,
        email: { type: 'string', format: 'email', maxLength: 254 },
        amount: MONEY_INPUT_SCHEMA,
        return_to: { type: 'string', pattern: '^(pi_(live|test)_|inv_(test_)?)[A-Za-z0-9]{1,64}$' },
      },
    },
    reply: { type: 'object', required: ['redirect_url', 'reference'] },
  },
  'wallet-top-ups.confirm': {
    request: { type: 'object', required: ['reference'], additionalProperties: false, properties: { reference: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' } } },
    reply: { type: 'object', required: ['reference', 'wallet_id', 'environment', 'outcome', 'amount', 'return_to'] },
  },
};
