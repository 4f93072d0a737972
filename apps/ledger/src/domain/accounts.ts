// The ledger's accounts. Each account belongs to one environment, so live and test money never meet in a
// posting or a balance. Merchant accounts are per merchant and environment; platform accounts per environment.
import type { Environment } from '@payments/ids';

/** What a merchant is owed (credit-normal: credits raise it). May go negative, and is shown so. */
export type MerchantAccountKind = 'available';
/**
 * fee_revenue: fees earned (credit-normal). clearing: customer funds received and not yet paid out
 * (debit-normal). adjustments: the other side of operators' corrections (debit-normal). wallet_funding: the other
 * side of operators' credits to customers' wallets (debit-normal: what the platform gave away).
 */
export type PlatformAccountKind = 'fee_revenue' | 'clearing' | 'adjustments' | 'wallet_funding';

export interface Account {
  readonly id: string;
  readonly environment: Environment;
  /** Credit-normal accounts show the negated sum of their entries. */
  readonly normal: 'debit' | 'credit';
  /**
   * Written by concurrent writers (every posting, or every posting of a busy shop): its balance is spread over
   * shards so writers do not queue on one row. Accounts written rarely (adjustments, wallet funding) keep one row,
   * and so does an account a posting must check before it writes (a wallet), which the check locks.
   */
  readonly hot: boolean;
}

const PLATFORM_NORMAL: Record<PlatformAccountKind, 'debit' | 'credit'> = { fee_revenue: 'credit', clearing: 'debit', adjustments: 'debit', wallet_funding: 'debit' };
/** Touched by (nearly) every posting; the others are written rarely enough for one balance row. */
const HOT_PLATFORM_ACCOUNTS: ReadonlySet<PlatformAccountKind> = new Set(['fee_revenue', 'clearing']);

/**
 * Hot: the ledger's instances book a shop's payments from different partitions at once (and its wallet payments by
 * concurrent commands); on one balance row each transaction would wait for the other's commit. Nothing checks a
 * merchant's balance before writing it (it may go negative), so nothing needs the one row.
 */
export function merchantAccount(merchantId: string, environment: Environment, kind: MerchantAccountKind = 'available'): Account {
  return { id: `${merchantId}:${environment}:${kind}`, environment, normal: 'credit', hot: true };
}

export function platformAccount(kind: PlatformAccountKind, environment: Environment): Account {
  return { id: `platform:${environment}:${kind}`, environment, normal: PLATFORM_NORMAL[kind], hot: HOT_PLATFORM_ACCOUNTS.has(kind) };
}

/**
 * A customer's wallet (`togo`): what the platform owes the customer (credit-normal), never below zero. One balance
 * row (not hot): a payment locks it to check and debit in one transaction. Wallet ids hold `_`, never `:`, so the
 * account id names its environment like every other.
 */
export function walletAccount(walletId: string, environment: Environment): Account {
  return { id: `${walletId}:${environment}:wallet`, environment, normal: 'credit', hot: false };
}

/** The account id suffix of every wallet (for queries over all of them). */
export const WALLET_ACCOUNT_SUFFIX = ':wallet';

/** The balance as its owner reads it: credit-normal accounts negate the sum of entries (debits positive). */
export function shownBalance(account: Pick<Account, 'normal'>, sumOfEntriesCents: bigint): bigint {
  return account.normal === 'credit' ? -sumOfEntriesCents : sumOfEntriesCents;
}
