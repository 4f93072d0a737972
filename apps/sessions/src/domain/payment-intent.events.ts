// What happened to a payment intent: the stream its state is built from. Data is plain JSON (ISO timestamps,
// integer cents) so the event store keeps it as is, and values computed at the time (fee) are recorded, not
// recomputed from configuration that may have changed since.
import type { SessionTerms } from './session-aggregate';
import type { IntentPaymentMethod } from './session-types';

export interface PaymentIntentCreated {
  readonly type: 'PaymentIntentCreated';
  readonly data: SessionTerms<IntentPaymentMethod>;
}

export interface PaymentIntentCryptoAddressAssigned {
  readonly type: 'PaymentIntentCryptoAddressAssigned';
  readonly data: { readonly address: string; readonly assignedAt: string };
}

export interface PaymentIntentProcessingStarted {
  readonly type: 'PaymentIntentProcessingStarted';
  readonly data: { readonly method: IntentPaymentMethod; readonly startedAt: string };
}

export interface PaymentIntentCryptoTransferReceived {
  readonly type: 'PaymentIntentCryptoTransferReceived';
  readonly data: { readonly txid: string; readonly amountCents: number; readonly receivedAt: string };
}

export interface PaymentIntentSucceeded {
  readonly type: 'PaymentIntentSucceeded';
  readonly data: {
    readonly paymentId: string;
    readonly feeRateBps: number;
    readonly feeCents: number;
    readonly netCents: number;
    readonly paidAt: string;
    /** The customer wallet debited (a `togo` payment); absent otherwise. */
    readonly walletId?: string;
  };
}

export interface PaymentIntentPaymentFailed {
  readonly type: 'PaymentIntentPaymentFailed';
  readonly data: { readonly reason: string; readonly failedAt: string };
}

export interface PaymentIntentCancelled {
  readonly type: 'PaymentIntentCancelled';
  readonly data: { readonly reason: string | null; readonly cancelledAt: string };
}

export interface PaymentIntentExpired {
  readonly type: 'PaymentIntentExpired';
  readonly data: { readonly expiredAt: string };
}

export type PaymentIntentEvent =
  | PaymentIntentCreated
  | PaymentIntentCryptoAddressAssigned
  | PaymentIntentProcessingStarted
  | PaymentIntentCryptoTransferReceived
  | PaymentIntentSucceeded
  | PaymentIntentPaymentFailed
  | PaymentIntentCancelled
  | PaymentIntentExpired;

export type PaymentIntentEventType = PaymentIntentEvent['type'];
