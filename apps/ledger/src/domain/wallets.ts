// Customer wallets (`togo`): their money lives in the journal, on `<wallet_id>:<environment>:wallet`. Pure: the
// wallet handlers check the balance under the wallet's row lock and write what these build.
import type { Environment } from '@payments/ids';
import { merchantAccount, platformAccount, walletAccount } from './accounts';
import { checkedPaymentAmounts, type PaymentAmounts } from './bookings';
import { journalEntries, postingId, type Posting, type PostingKind } from './posting';

/** The one answer a wallet payment gets, recorded per payment id: a decline is as final as a payment. */
export type WalletPaymentOutcome = 'paid' | 'insufficient_funds';

/** The wallet holds the amount (balances as shown: what the platform owes the customer). */
export function walletCovers(balanceCents: bigint, amountCents: number): boolean {
  return balanceCents >= BigInt(amountCents);
}

/** A wallet id names its environment (`wal_live_…`/`wal_test_…`): a command naming the other one is a mistake. */
export function walletInEnvironment(walletId: string, environment: Environment): boolean {
  return walletId.startsWith(`wal_${environment}_`);
}

export interface WalletPayment {
  readonly walletId: string;
  readonly merchantId: string;
  readonly environment: Environment;
  /** `pi_…`/`inv_…`. */
  readonly source: string;
  readonly paymentId: string;
  readonly method: string;
  readonly amount: string;
  readonly fee: string;
  readonly net: string;
  readonly feeRateBps: number;
  readonly occurredAt: string;
}

/**
 * A session paid from a wallet: the wallet debited with the gross, the merchant's available credited with the net
 * and fee revenue with the fee. The same posting id as the payment's event would book (`payment:<id>`), so that
 * event finds it booked. Amounts checked as for every payment (BookingRefused when they disagree).
 */
export function bookWalletPayment(payment: WalletPayment): { posting: Posting; amounts: PaymentAmounts } {
  const { environment } = payment;
  const amounts = checkedPaymentAmounts({
    id: payment.paymentId,
    method: payment.method,
    amount: payment.amount,
    fee: payment.fee,
    net: payment.net,
    currency: 'USD',
    fee_rate_bps: payment.feeRateBps,
  });
  const posting: Posting = {
    id: postingId(`payment:${payment.paymentId}`),
    kind: 'payment',
    merchantId: payment.merchantId,
    environment,
    walletId: payment.walletId,
    source: payment.source,
    paymentId: payment.paymentId,
    amountCents: amounts.amountCents,
    feeCents: amounts.feeCents,
    netCents: amounts.netCents,
    entries: journalEntries(environment, [
      { account: walletAccount(payment.walletId, environment), amountCents: amounts.amountCents },
      { account: merchantAccount(payment.merchantId, environment), amountCents: -amounts.netCents },
      { account: platformAccount('fee_revenue', environment), amountCents: -amounts.feeCents },
    ]),
    eventId: null,
    description: null,
    occurredAt: payment.occurredAt,
  };
  return { posting, amounts };
}

/** An operator's credit to a wallet, once per wallet and key: the platform's wallet_funding pays for it. */
export function bookWalletCredit(credit: {
  readonly walletId: string;
  readonly environment: Environment;
  readonly key: string;
  readonly amountCents: number;
  readonly description: string | null;
  readonly occurredAt: string;
}): Posting {
  const { environment } = credit;
  return walletMoneyIn('wallet_credit', {
    id: postingId(`wallet-credit:${credit.walletId}:${credit.key}`),
    walletId: credit.walletId,
    environment,
    source: credit.key,
    amountCents: credit.amountCents,
    description: credit.description,
    occurredAt: credit.occurredAt,
    from: platformAccount('wallet_funding', environment),
  });
}

/** A card top-up the provider verified, once per top-up: the card money received sits in clearing. */
export function bookWalletTopUp(topUp: {
  readonly walletId: string;
  readonly environment: Environment;
  readonly topUpId: string;
  readonly amountCents: number;
  readonly occurredAt: string;
}): Posting {
  const { environment } = topUp;
  return walletMoneyIn('wallet_top_up', {
    id: postingId(`wallet-top-up:${topUp.topUpId}`),
    walletId: topUp.walletId,
    environment,
    source: topUp.topUpId,
    amountCents: topUp.amountCents,
    description: null,
    occurredAt: topUp.occurredAt,
    from: platformAccount('clearing', environment),
  });
}

function walletMoneyIn(
  kind: 'wallet_credit' | 'wallet_top_up',
  input: {
    id: string;
    walletId: string;
    environment: Environment;
    source: string;
    amountCents: number;
    description: string | null;
    occurredAt: string;
    from: ReturnType<typeof platformAccount>;
  },
): Posting {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) throw new RangeError(`a wallet is credited a positive amount, got ${input.amountCents}`);
  return {
    id: input.id,
    kind,
    // No merchant's money moves: never on a merchant's balance transactions.
    merchantId: null,
    environment: input.environment,
    walletId: input.walletId,
    source: input.source,
    paymentId: null,
    amountCents: input.amountCents,
    feeCents: 0,
    netCents: 0,
    entries: journalEntries(input.environment, [
      { account: input.from, amountCents: input.amountCents },
      { account: walletAccount(input.walletId, input.environment), amountCents: -input.amountCents },
    ]),
    eventId: null,
    description: input.description,
    occurredAt: input.occurredAt,
  };
}

export type WalletTransactionKind = 'credit' | 'top_up' | 'payment' | 'refund';

const WALLET_TRANSACTION_TYPES: Partial<Record<PostingKind, WalletTransactionKind>> = {
  wallet_credit: 'credit',
  wallet_top_up: 'top_up',
  payment: 'payment',
  refund: 'refund',
};

/** How a posting on a wallet shows on its statement (null for a kind that never touches a wallet). */
export function walletTransactionType(kind: PostingKind): WalletTransactionKind | null {
  return WALLET_TRANSACTION_TYPES[kind] ?? null;
}

/** The wallet entry as the customer reads it: money in positive (the wallet is credit-normal). */
export function walletShownCents(walletEntryCents: bigint): bigint {
  return -walletEntryCents;
}
