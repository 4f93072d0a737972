// The payment intent as the command pipeline and the read model see it: how it renders, which public event each
// stored event is (DESIGN §4), the payment a success makes, and its read-model row.
import type { PublicEventType } from '@payments/events';
import { sessionKind, type SessionKind } from '../command-pipeline/session-kind';
import {
  isFinalPaymentIntentStatus,
  PaymentIntent,
  paymentIntentResourceAt,
  toPaymentIntentResource,
  type PaymentIntentEvent,
  type PaymentIntentResource,
  type PaymentIntentState,
} from '../domain';
import { paymentRecord } from '../payments/payment-record';
import type { ReadModelLayout } from '../persistence/session-read-model';

export type PaymentIntentKind = SessionKind<PaymentIntent, PaymentIntentState, PaymentIntentEvent, PaymentIntentResource>;

/** The public type of a stored event, given the state right after it; null for events merchants do not see. */
export function publicPaymentIntentType(event: PaymentIntentEvent, after: PaymentIntentState): PublicEventType | null {
  switch (event.type) {
    case 'PaymentIntentCreated':
      return 'payment_intent.created';
    case 'PaymentIntentProcessingStarted':
      return 'payment_intent.processing';
    case 'PaymentIntentCryptoTransferReceived':
      // To an intent already paid or cancelled: recorded, not booked, reported. Otherwise a transfer that leaves
      // something to pay (also on an expired intent); one that completes the amount is followed by the success.
      if (after.status === 'succeeded' || after.status === 'cancelled') return 'payment_intent.crypto_transfer_after_close';
      return after.crypto.remainingCents > 0 && event.data.amountCents > 0 ? 'payment_intent.partially_paid' : null;
    case 'PaymentIntentCryptoTransferReversed':
      // An operator's matter (logged at error level by the sink); the timeline shows it.
      return null;
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

export function paymentIntentKind(checkoutBaseUrl: string): PaymentIntentKind {
  return sessionKind(
    'payment_intent',
    { fromEvents: (events) => PaymentIntent.fromEvents(events), isFinalStatus: isFinalPaymentIntentStatus },
    { checkoutBaseUrl, toResource: toPaymentIntentResource, resourceAt: paymentIntentResourceAt },
    {
      publicType: publicPaymentIntentType,
      completesPayment: (event) => event.type === 'PaymentIntentSucceeded',
      paymentOf: (state) => {
        if (state.paymentId === null || state.paymentMethod === null || state.paidAt === null) throw new Error(`payment intent ${state.id} is not paid`);
        // Crypto books what was received by the success (over-payment included), not the amount asked.
        return paymentRecord({ ...state, amountCents: state.paidAmountCents ?? state.amountCents }, { id: state.paymentId, sourceType: 'payment_intent', method: state.paymentMethod, paidAt: state.paidAt, walletId: state.walletId });
      },
    },
  );
}

/** The `payment_intents` read model's columns. */
export const PAYMENT_INTENTS_LAYOUT: ReadModelLayout<PaymentIntentState> = {
  table: 'payment_intents',
  creationColumns: [],
  changeColumns: ['payment_method', 'payment_id'],
  values: (state) => ({ payment_method: state.paymentMethod, payment_id: state.paymentId }),
  expiringStatuses: ['requires_payment_method', 'processing', 'failed'],
};
