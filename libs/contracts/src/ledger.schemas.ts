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
};
