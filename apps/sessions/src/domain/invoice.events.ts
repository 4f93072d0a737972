// What happened to an invoice: the stream its state is built from (plain JSON, values fixed at the time).
import type { SessionTerms } from './session-aggregate';
import type { InvoicePaymentMethod } from './session-types';

export interface InvoiceCreated {
  readonly type: 'InvoiceCreated';
  readonly data: SessionTerms<InvoicePaymentMethod> & { readonly number: string };
}

/** Payer details as kept: the phone is already masked, the full number is never stored. */
export interface InvoicePayer {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly country: string | null;
}

export interface InvoicePaid {
  readonly type: 'InvoicePaid';
  readonly data: {
    readonly paymentId: string;
    readonly method: InvoicePaymentMethod;
    readonly feeRateBps: number;
    readonly feeCents: number;
    readonly netCents: number;
    readonly payer: InvoicePayer;
    readonly paidAt: string;
    /** The customer wallet debited (a `wallet` payment); absent otherwise. */
    readonly walletId?: string;
  };
}

export interface InvoicePaymentFailed {
  readonly type: 'InvoicePaymentFailed';
  readonly data: { readonly method: InvoicePaymentMethod | null; readonly reason: string; readonly failedAt: string };
}

export interface InvoiceExpired {
  readonly type: 'InvoiceExpired';
  readonly data: { readonly expiredAt: string };
}

export type InvoiceEvent = InvoiceCreated | InvoicePaid | InvoicePaymentFailed | InvoiceExpired;

export type InvoiceEventType = InvoiceEvent['type'];
