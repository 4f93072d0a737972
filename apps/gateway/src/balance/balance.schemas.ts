import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const MONEY = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' } as const;

export const BALANCE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['object', 'environment', 'available'],
  properties: {
    object: { type: 'string', enum: ['balance'] },
    environment: { type: 'string', enum: ['live', 'test'] },
    available: {
      type: 'array',
      items: {
        type: 'object',
        required: ['amount', 'currency'],
        properties: { amount: MONEY, currency: { type: 'string', enum: ['USD'] } },
      },
    },
  },
};

export const BALANCE_TRANSACTION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'type', 'amount', 'fee', 'net', 'currency', 'source', 'payment_id', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^txn_[A-Za-z0-9_-]{24}$' },
    object: { type: 'string', enum: ['balance_transaction'] },
    type: { type: 'string', enum: ['payment', 'refund', 'adjustment'] },
    amount: MONEY,
    fee: MONEY,
    net: MONEY,
    currency: { type: 'string', enum: ['USD'] },
    source: { type: ['string', 'null'] } as unknown as SchemaObject,
    payment_id: { type: ['string', 'null'] } as unknown as SchemaObject,
    description: { type: ['string', 'null'] } as unknown as SchemaObject,
    created_at: { type: 'string', format: 'date-time' },
  },
};

export const BALANCE_TRANSACTION_LIST_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['object', 'data', 'has_more'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: BALANCE_TRANSACTION_SCHEMA }, has_more: { type: 'boolean' } },
};
