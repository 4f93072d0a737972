// Ledger: the commands the gateway sends the ledger for balances and balance transactions. Plain types.

export const LEDGER_SERVICE = 'ledger';

export const LEDGER_COMMANDS = {
  getBalance: 'balance.get',
  listBalanceTransactions: 'balance-transactions.list',
  /**
   * Sessions: pay a session from a customer's wallet (`togo`) in one posting (wallet debited with the amount, the
   * merchant credited with the net, fee revenue with the fee), only if the wallet holds the amount. The answer is
   * final per `payment_id`: a repeat (a retry, the background re-drive after a crash) gets the first answer, a
   * decline included, and never posts twice.
   */
  payFromWallet: 'wallets.pay',
  /** Operators (admin CLI): credit a wallet from the platform's funding account, once per key. */
  creditWallet: 'wallets.credit',
  /** Sessions: a card top-up the provider verified, credited once per top-up (its attempt reference). */
  topUpWallet: 'wallets.top-up',
  /** The checkout and the wallet page: a wallet's balance. */
  getWallet: 'wallets.get',
  /** The wallet page: a wallet's statement, newest first. */
  listWalletTransactions: 'wallet-transactions.list',
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

// ---- Customer wallets (`togo`). A wallet is an account in the journal, `<wallet_id>:<environment>:wallet`
// (credit-normal: what the platform owes the customer); its identity (e-mail, profile) lives with the gateway.

export interface WalletScope {
  /** `wal_live_…` / `wal_test_…`. */
  wallet_id: string;
  environment: LedgerEnvironment;
}

export interface PayFromWalletCommand extends WalletScope {
  merchant_id: string;
  /** The payment's id (decimal string), chosen by sessions before it asks: the posting's one key. */
  payment_id: string;
  /** `pi_…` or `inv_…`: the session paid. */
  source: string;
  /** The method as the session's surface names it (`togo` on intents, `wallet` on invoices). */
  method: 'togo' | 'wallet';
  /** MoneyStrings: amount = fee + net, the fee at `fee_rate_bps` (checked again by the ledger). */
  amount: string;
  fee: string;
  net: string;
  fee_rate_bps: number;
}

export type PayFromWalletReply =
  | { outcome: 'paid'; posting_id: string; /** The wallet's balance after this payment (MoneyString). */ balance: string }
  | { outcome: 'insufficient_funds'; balance: string };

export interface CreditWalletCommand extends WalletScope {
  /** MoneyString, 0.01 to 999999.99. */
  amount: string;
  /** The operator's idempotency key: one credit per wallet, environment and key. */
  key: string;
  /** Shown on the customer's statement. */
  description?: string;
}

export interface TopUpWalletCommand extends WalletScope {
  /** MoneyString the provider verified. */
  amount: string;
  /** The provider attempt's reference: one credit per top-up. */
  top_up_id: string;
}

/** `wallets.credit` and `wallets.top-up`: `created` false when the key (or top-up) was already credited. */
export interface WalletCreditReply {
  posting_id: string;
  created: boolean;
  balance: string;
}

export type GetWalletCommand = WalletScope;

export interface WalletBalanceResource {
  object: 'wallet_balance';
  wallet_id: string;
  environment: LedgerEnvironment;
  /** MoneyString (never negative). */
  available: string;
  currency: 'USD';
}

export type WalletTransactionType = 'credit' | 'top_up' | 'payment' | 'refund';

export interface ListWalletTransactionsCommand extends WalletScope {
  limit: number;
  starting_after?: string;
}

export interface WalletTransactionResource {
  id: string; // txn_…
  object: 'wallet_transaction';
  type: WalletTransactionType;
  /** MoneyString, signed as the customer sees it: money in positive, a payment negative. */
  amount: string;
  currency: 'USD';
  /** The merchant paid or refunding (payment, refund); null for credits and top-ups. */
  merchant_id: string | null;
  /** `pi_…`/`inv_…` (payment), `re_…` (refund), the top-up's reference, null (credit). */
  source: string | null;
  payment_id: string | null;
  description: string | null;
  created_at: string;
}

export interface WalletTransactionList {
  object: 'list';
  data: WalletTransactionResource[];
  has_more: boolean;
}
