import type { JsonSchema, RegisteredEventType } from './event-type';
import { STREAMS } from './topics';

const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'MoneyString, two decimals; negative where money leaves the merchant.' } as const;
const entryAmount = { ...money, description: 'MoneyString, two decimals: debits positive, credits negative.' } as const;

/** `data` of `ledger.posting.created`: one posting of the journal with its entries. */
export const POSTING_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'A posting written to the journal: entries (debits positive, credits negative) that sum to zero.',
  required: ['id', 'kind', 'merchant_id', 'environment', 'source', 'payment_id', 'amount', 'fee', 'net', 'currency', 'entries'],
  properties: {
    id: { type: 'string', pattern: '^txn_[A-Za-z0-9_-]{24}$', description: 'The balance transaction id (derived from what caused it).' },
    kind: { enum: ['payment', 'refund', 'adjustment', 'wallet_credit', 'wallet_top_up'] },
    merchant_id: { type: ['string', 'null'], minLength: 1, description: "The merchant's; null for a wallet's credit or top-up (no merchant's money moves)." },
    environment: { enum: ['live', 'test'] },
    source: { type: 'string', description: 'pi_…/inv_… (payment), re_… (refund), the key (adjustment).' },
    payment_id: { type: ['string', 'null'] },
    wallet_id: { type: ['string', 'null'], description: "The customer's wallet it moves (a wallet payment, its refunds, a credit, a top-up); absent or null otherwise." },
    amount: { ...money, description: 'As the balance transaction shows it: negative where money leaves the merchant (a refund, a debit adjustment); amount − fee = net.' },
    fee: money,
    net: { ...money, description: "What the posting did to the merchant's available balance." },
    currency: { const: 'USD' },
    entries: {
      type: 'array',
      minItems: 2,
      items: {
        type: 'object',
        required: ['account', 'amount'],
        properties: { account: { type: 'string', description: '<merchant>:<environment>:available, <wallet>:<environment>:wallet or platform:<environment>:<kind>.' }, amount: entryAmount },
      },
    },
  },
};

export const LEDGER_EVENT_TYPES = {
  'ledger.posting.created': 'The ledger wrote a posting (a payment booked, a refund, an adjustment, a wallet credit or top-up).',
} as const;

export type LedgerEventType = keyof typeof LEDGER_EVENT_TYPES;

/** The ledger's types, as definitions. */
export const LEDGER_EVENT_DEFINITIONS: readonly RegisteredEventType[] = [
  { type: 'ledger.posting.created', version: 1, dataSchema: POSTING_SCHEMA, stream: STREAMS.ledger, description: LEDGER_EVENT_TYPES['ledger.posting.created'] },
];
