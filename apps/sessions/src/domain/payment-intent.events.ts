// What happened to a payment intent: the stream its state is built from. Data is plain JSON (ISO timestamps,
// integer cents) so the event store keeps it as is, and values computed at the time (fee) are recorded, not
// recomputed from configuration that may have changed since.
import type { Environment } from '@payments/ids';
import type { FeeSchedule } from '@payments/money';
import type { Currency, Customer, IntentPaymentMethod, Metadata } from './session-types';

export interface PaymentIntentCreated {
  readonly type: 'PaymentIntentCreated';
  readonly data: {
    readonly id: string;
    readonly merchantId: string;
    readonly environment: Environment;
    readonly amountCents: number;
    readonly currency: Currency;
    readonly description: string | null;
    readonly externalRef: string | null;
    readonly successUrl: string | null;
    readonly cancelUrl: string | null;
    readonly methods: readonly IntentPaymentMethod[];
    readonly customer: Customer | null;
    readonly metadata: Metadata;
    readonly createdAt: string;
    readonly expiresAt: string;
    /** The merchant's fee schedule at creation; absent means the default schedule. */
    readonly feeSchedule?: FeeSchedule;
  };
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
