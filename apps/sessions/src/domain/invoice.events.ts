// What happened to an invoice: the stream its state is built from (plain JSON, values fixed at the time).
import type { Environment } from '@payments/ids';
import type { FeeSchedule } from '@payments/money';
import type { Currency, Customer, InvoicePaymentMethod, Metadata } from './session-types';

export interface InvoiceCreated {
  readonly type: 'InvoiceCreated';
  readonly data: {
    readonly id: string;
    readonly number: string;
    readonly merchantId: string;
    readonly environment: Environment;
    readonly amountCents: number;
    readonly currency: Currency;
    readonly description: string | null;
    readonly externalRef: string | null;
    readonly successUrl: string | null;
    readonly cancelUrl: string | null;
    readonly methods: readonly InvoicePaymentMethod[];
    readonly customer: Customer | null;
    readonly metadata: Metadata;
    readonly createdAt: string;
    readonly expiresAt: string;
    /** The merchant's fee schedule at creation; absent means the default schedule. */
    readonly feeSchedule?: FeeSchedule;
  };
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
