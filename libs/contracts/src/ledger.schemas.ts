// JSON Schema of the ledger's commands: the ledger checks every command against these before it reads anything,
// with the same limits as the gateway's query validation (GET /api/v1/balance-transactions).
import type { LedgerCommandName } from './ledger.contract';

const SCOPE_PROPERTIES = {
  merchant_id: { type: 'string', minLength: 1, maxLength: 64 },
  environment: { type: 'string', enum: ['live', 'test'] },
} as const;

const BALANCE_TRANSACTION_ID = { type: 'string', pattern: '^txn_[A-Za-z0-9_-]{24}$' } as const;
/** Read by the ledger's date parser (the gateway accepts a date or a date-time); bounded here. */
const CREATED_BOUND = { type: 'string', minLength: 1, maxLength: 64 } as const;

const WALLET_SCOPE_PROPERTIES = {
  wallet_id: { type: 'string', pattern: '^wal_(live|test)_[A-Za-z0-9]{24}$' },
  environment: { type: 'string', enum: ['live', 'test'] },
} as const;
const MONEY = (min: string) => ({ type: 'string', pattern: '^\\d+(?:\\.\\d{1,2})?$', 'x-money': { min, max: '999999.99' } }) as const;

export const LEDGER_COMMAND_SCHEMAS: Record<LedgerCommandName, { request: object }> = {
  'balance.get': { request: { type: 'object', required: ['merchant_id', 'environment'], properties: SCOPE_PROPERTIES } },
  'balance-transactions.list': {
    request: {
      type: 'object',
      required: ['merchant_id', 'environment', 'limit'],
      properties: {
        ...SCOPE_PROPERTIES,
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        starting_after: BALANCE_TRANSACTION_ID,
        ending_before: BALANCE_TRANSACTION_ID,
        type: { type: 'string', enum: ['payment', 'refund', 'adjustment'] },
        created_gte: CREATED_BOUND,
        created_lt: CREATED_BOUND,
      },
    },
  },
  'wallets.pay': {
    request: {
      type: 'object',
      required: ['wallet_id', 'environment', 'merchant_id', 'payment_id', 'source', 'method', 'amount', 'fee', 'net', 'fee_rate_bps'],
      additionalProperties: false,
      properties: {
        ...WALLET_SCOPE_PROPERTIES,
        merchant_id: SCOPE_PROPERTIES.merchant_id,
        payment_id: { type: 'string', pattern: '^[1-9][0-9]{0,18}$' },
        source: { type: 'string', pattern: '^(pi|inv)_[A-Za-z0-9_]{1,96}$' },
        method: { type: 'string', enum: ['togo', 'wallet'] },
        amount: MONEY('0.01'),
        fee: MONEY('0.00'),
        net: MONEY('0.00'),
        fee_rate_bps: { type: 'integer', minimum: 0, maximum: 10000 },
      },
    },
  },
  'wallets.credit': {
    request: {
      type: 'object',
      required: ['wallet_id', 'environment', 'amount', 'key'],
      additionalProperties: false,
      properties: {
        ...WALLET_SCOPE_PROPERTIES,
        amount: MONEY('0.01'),
        key: { type: 'string', minLength: 1, maxLength: 190 },
        description: { type: 'string', maxLength: 500 },
      },
    },
  },
  'wallets.top-up': {
    request: {
      type: 'object',
      required: ['wallet_id', 'environment', 'amount', 'top_up_id'],
      additionalProperties: false,
      properties: { ...WALLET_SCOPE_PROPERTIES, amount: MONEY('0.01'), top_up_id: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' } },
    },
  },
  'wallets.get': { request: { type: 'object', required: ['wallet_id', 'environment'], additionalProperties: false, properties: WALLET_SCOPE_PROPERTIES } },
  'wallet-transactions.list': {
    request: {
      type: 'object',
      required: ['wallet_id', 'environment', 'limit'],
      additionalProperties: false,
      properties: { ...WALLET_SCOPE_PROPERTIES, limit: { type: 'integer', minimum: 1, maximum: 100 }, starting_after: BALANCE_TRANSACTION_ID },
    },
  },
};
