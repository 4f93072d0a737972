import type { BalanceTransactionResource } from '@payments/contracts';
import { formatMoney } from '@payments/money';
import { shownAmountCents } from '../domain';
import type { StoredPosting } from '../journal/journal.repository';

/** A posting as the merchant sees it: what it did to the available balance. */
export function toBalanceTransaction(posting: StoredPosting): BalanceTransactionResource {
  return {
    id: posting.id,
    object: 'balance_transaction',
    type: posting.kind,
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
