import type { BalanceTransactionResource, BalanceTransactionType } from '@payments/contracts';
import { formatMoney } from '@payments/money';
import { shownAmountCents } from '../domain';
import type { StoredPosting } from '../journal/journal.repository';

/** A posting as the merchant sees it: what it did to the available balance. */
export function toBalanceTransaction(posting: StoredPosting): BalanceTransactionResource {
  return {
    id: posting.id,
    object: 'balance_transaction',
    type: merchantKind(posting),
    amount: formatMoney(shownAmountCents(posting)),
    fee: formatMoney(posting.feeCents),
    net: formatMoney(posting.netCents),
    currency: 'USD',
    source: posting.kind === 'adjustment' ? null : posting.source,
    payment_id: posting.paymentId,
    description: posting.description,
    created_at: posting.createdAt.toISOString(),
  };
}

/** Balance transactions are read by merchant: a wallet's credit or top-up (no merchant) can never be one. */
function merchantKind(posting: StoredPosting): BalanceTransactionType {
  if (posting.kind === 'wallet_credit' || posting.kind === 'wallet_top_up') throw new Error(`posting ${posting.id} (${posting.kind}) is no merchant's`);
  return posting.kind;
}
