// A posting: entries that sum to zero, written at once and never changed. Amounts are integer cents, debits
// positive and credits negative. A correction is a new posting, never an edit.
import { createHash } from 'node:crypto';
import type { Environment } from '@payments/ids';
import type { Account } from './accounts';

/** wallet_credit (an operator's, from wallet_funding) and wallet_top_up (a card top-up, from clearing) move no merchant's money. */
export type PostingKind = 'payment' | 'refund' | 'adjustment' | 'wallet_credit' | 'wallet_top_up';

/** The kinds that belong to a merchant (every kind but a wallet's credits and top-ups). */
export const MERCHANT_POSTING_KINDS = ['payment', 'refund', 'adjustment'] as const;

export interface Entry {
  readonly account: Account;
  /** Debit positive, credit negative; never zero. */
  readonly amountCents: number;
}

export interface Posting {
  /** `txn_…`, derived from what caused it (the payment, the refund, the adjustment's key): one cause, one posting. */
  readonly id: string;
  readonly kind: PostingKind;
  /** Null only for a wallet's credit or top-up (no merchant's money moves). */
  readonly merchantId: string | null;
  readonly environment: Environment;
  /** The customer's wallet it debits or credits (a wallet payment, its refunds, a credit, a top-up); else null. */
  readonly walletId?: string | null;
  /** What it books: `pi_…`/`inv_…` (payment), `re_…` (refund), the adjustment's or wallet credit's key, the top-up's reference. */
  readonly source: string;
  readonly paymentId: string | null;
  /** The gross amount (signed for an adjustment: negative takes money from the merchant). */
  readonly amountCents: number;
  readonly feeCents: number;
  /** What it does to the merchant's available balance. */
  readonly netCents: number;
  readonly entries: readonly Entry[];
  /** The event it was booked from (null for an operator's adjustment). */
  readonly eventId: string | null;
  /** The request that started the chain, as that event names it (not stored: carried to the posting's own event). */
  readonly correlationId?: string | null;
  readonly description: string | null;
  readonly occurredAt: string;
}

/** `txn_` and 24 base64url characters of SHA-256 over the cause: the same cause always gives the same id. */
export function postingId(cause: string): string {
  return `txn_${createHash('sha256').update(cause).digest('base64url').slice(0, 24)}`;
}

/** Entries with a zero amount are dropped; what remains must sum to zero, in one environment, on two accounts at least. */
export function journalEntries(environment: Environment, entries: readonly Entry[]): Entry[] {
  const kept = entries.filter((entry) => entry.amountCents !== 0);
  for (const entry of kept) {
    if (!Number.isSafeInteger(entry.amountCents)) throw new RangeError(`entry amount must be integer cents, got ${entry.amountCents}`);
    if (entry.account.environment !== environment) throw new Error(`entry on ${entry.account.id} is not in the ${environment} environment`);
  }
  const sum = kept.reduce((total, entry) => total + BigInt(entry.amountCents), 0n);
  if (sum !== 0n) throw new Error(`entries sum to ${sum} cents, not zero`);
  if (kept.length < 2) throw new Error('a posting moves money between two accounts at least');
  return kept;
}

/**
 * A posting's amount as the merchant reads it (balance transactions, `ledger.posting.created`): negative where money
 * left the merchant, so amount − fee = net for every kind. The journal keeps a refund's amount as asked (positive).
 */
export function shownAmountCents(posting: { readonly kind: PostingKind; readonly amountCents: number | bigint }): bigint {
  const cents = BigInt(posting.amountCents);
  return posting.kind === 'refund' ? -cents : cents;
}
