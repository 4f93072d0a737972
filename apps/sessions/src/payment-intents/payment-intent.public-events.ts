// Which public event (DESIGN §4) each stored event of an intent is, and its envelope: data.object is the intent
// as GET shows it right after that event; a success also carries the payment the ledger books.
import { newEnvelope, type EventEnvelope, type PublicEventType } from '@payments/events';
import { formatMoney } from '@payments/money';
import type { PaymentEventData, PaymentIntentEventData } from '@payments/contracts';
import { PaymentIntent, toPaymentIntentResource, type PaymentIntentEvent, type PaymentIntentState } from '../domain';
import type { PublicEventContext } from '../shared/public-event-context';

/** The public type of a stored event, given the state right after it; null for events merchants do not see. */
export function publicPaymentIntentType(event: PaymentIntentEvent, after: PaymentIntentState): PublicEventType | null {
  switch (event.type) {
    case 'PaymentIntentCreated':
      return 'payment_intent.created';
    case 'PaymentIntentProcessingStarted':
      return 'payment_intent.processing';
    case 'PaymentIntentCryptoTransferReceived':
      // A transfer that leaves something to pay; one that completes the amount is followed by the success.
      return after.crypto.remainingCents > 0 ? 'payment_intent.partially_paid' : null;
    case 'PaymentIntentSucceeded':
      return 'payment_intent.succeeded';
    case 'PaymentIntentPaymentFailed':
      return 'payment_intent.payment_failed';
    case 'PaymentIntentCancelled':
      return 'payment_intent.cancelled';
    case 'PaymentIntentExpired':
      return 'payment_intent.expired';
    case 'PaymentIntentCryptoAddressAssigned':
      return null;
  }
}

export function intentPaymentData(state: PaymentIntentState): PaymentEventData {
  if (state.paymentId === null || state.paymentMethod === null) throw new Error(`payment intent ${state.id} is not paid`);
  return {
    id: state.paymentId,
    method: state.paymentMethod,
    amount: formatMoney(state.amountCents),
    fee: formatMoney(state.feeCents),
    net: formatMoney(state.netCents),
    currency: state.currency,
  };
}

/**
 * Envelopes of `events` appended after `before` (null for a new stream): one per public event, with
 * sequence = the stream version the event got.
 */
export function paymentIntentEnvelopes(
  before: PaymentIntent | null,
  events: readonly PaymentIntentEvent[],
  context: PublicEventContext,
): EventEnvelope<PaymentIntentEventData>[] {
  const envelopes: EventEnvelope<PaymentIntentEventData>[] = [];
  let intent = before;
  for (const event of events) {
    intent = intent === null ? PaymentIntent.fromEvents([event]) : intent.apply([event]);
    const type = publicPaymentIntentType(event, intent.state);
    if (type === null) continue;
    const data: PaymentIntentEventData = {
      object: toPaymentIntentResource(intent.state, { checkoutBaseUrl: context.checkoutBaseUrl, now: context.now }),
    };
    if (event.type === 'PaymentIntentSucceeded') data.payment = intentPaymentData(intent.state);
    envelopes.push(
      newEnvelope({
        type,
        aggregate_id: intent.id,
        aggregate_type: 'payment_intent',
        sequence: intent.version,
        merchant_id: context.metadata.merchant_id,
        environment: context.metadata.environment,
        correlation_id: context.metadata.correlation_id,
        causation_id: context.metadata.causation_id,
        occurred_at: context.now,
        data,
      }),
    );
  }
  return envelopes;
}
