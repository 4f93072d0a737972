// Ledger: the commands the gateway sends the ledger for balances and balance transactions. Plain types.

export const LEDGER_SERVICE = 'ledger';

export const LEDGER_COMMANDS = {
  getBalance: 'balance.get',
  listBalanceTransactions: 'balance-transactions.list',
} as const;

export type LedgerCommandName = (typeof LEDGER_COMMANDS)[keyof typeof LEDGER_COMMANDS];

export type LedgerEnvironment = 'live' | 'test';

export interface LedgerScope {
  merchant_id: string;
  environment: LedgerEnvironment;
}

export type GetBalanceCommand = LedgerScope;

export interface BalanceResource {
  object: 'balance';
  environment: LedgerEnvironment;
  available: Array<{ amount: string; currency: 'USD' }>;
}

export type BalanceTransactionType = 'payment' | 'refund' | 'adjustment';

export interface ListBalanceTransactionsCommand extends LedgerScope {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  type?: BalanceTransactionType;
  /** ISO 8601 bounds on created_at: from (inclusive) and to (exclusive). */
  created_gte?: string;
  created_lt?: string;
}

export interface BalanceTransactionResource {
  id: string; // txn_…
  object: 'balance_transaction';
  type: BalanceTransactionType;
  /** MoneyStrings; for a refund or a negative adjustment `amount` and `net` are negative. */
  amount: string;
  fee: string;
  net: string;
  currency: 'USD';
  /** pi_…/inv_… (payment), re_… (refund), null (adjustment). */
  source: string | null;
  payment_id: string | null;
  description: string | null;
  created_at: string;
}

export interface BalanceTransactionList {
  object: 'list';
  data: BalanceTransactionResource[];
  has_more: boolean;
}
