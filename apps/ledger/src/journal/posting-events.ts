import { newEnvelope, type EventEnvelope } from '@payments/events';
import { formatMoney } from '@payments/money';
import { shownAmountCents, type Posting } from '../domain';

/** `ledger.posting.created` for internal teams: the posting with its entries, keyed by the posting's id. */
export function postingCreated(posting: Posting): EventEnvelope {
  return newEnvelope({
    type: 'ledger.posting.created',
    aggregate_type: 'posting',
    aggregate_id: posting.id,
    // A posting never changes: its creation is its only event.
    sequence: 1,
    // A wallet's credit or top-up moves no merchant's money: the platform's own event.
    merchant_id: posting.merchantId ?? 'platform',
    environment: posting.environment,
    // The chain's request, as the booked event names it; an adjustment starts its own chain.
    correlation_id: posting.correlationId ?? posting.eventId ?? posting.id,
    causation_id: posting.eventId,
    data: {
      id: posting.id,
      kind: posting.kind,
      merchant_id: posting.merchantId,
      environment: posting.environment,
      source: posting.source,
      payment_id: posting.paymentId,
      wallet_id: posting.walletId ?? null,
      amount: formatMoney(shownAmountCents(posting)),
      fee: formatMoney(posting.feeCents),
      net: formatMoney(posting.netCents),
      currency: 'USD',
      entries: posting.entries.map((entry) => ({ account: entry.account.id, amount: formatMoney(entry.amountCents) })),
    },
  });
}
