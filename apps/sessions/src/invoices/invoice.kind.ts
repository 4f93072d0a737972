// The invoice as the command pipeline and the read model see it: how it renders, its public events, the payment
// a paid invoice makes, and its read-model row.
import type { PublicEventType } from '@payments/events';
import { sessionKind, type SessionKind } from '../command-pipeline/session-kind';
import { Invoice, invoiceResourceAt, isFinalInvoiceStatus, toInvoiceResource, type InvoiceEvent, type InvoiceResource, type InvoiceState } from '../domain';
import { paymentRecord } from '../payments/payment-record';
import type { ReadModelLayout } from '../persistence/session-read-model';

export type InvoiceKind = SessionKind<Invoice, InvoiceState, InvoiceEvent, InvoiceResource>;

const PUBLIC_TYPES: Record<InvoiceEvent['type'], PublicEventType> = {
  InvoiceCreated: 'invoice.created',
  InvoicePaid: 'invoice.paid',
  InvoicePaymentFailed: 'invoice.payment_failed',
  InvoiceExpired: 'invoice.expired',
};

export function invoiceKind(checkoutBaseUrl: string): InvoiceKind {
  return sessionKind(
    'invoice',
    { fromEvents: (events) => Invoice.fromEvents(events), isFinalStatus: isFinalInvoiceStatus },
    { checkoutBaseUrl, toResource: toInvoiceResource, resourceAt: invoiceResourceAt },
    {
      publicType: (event) => PUBLIC_TYPES[event.type],
      completesPayment: (event) => event.type === 'InvoicePaid',
      paymentOf: (state) => {
        if (state.payment === null) throw new Error(`invoice ${state.id} is not paid`);
        const { reference, method, paidAt, walletId } = state.payment;
        return paymentRecord(state, { id: reference, sourceType: 'invoice', method, paidAt, walletId });
      },
    },
  );
}

/** The `invoices` read model's columns. */
export const INVOICES_LAYOUT: ReadModelLayout<InvoiceState> = {
  table: 'invoices',
  creationColumns: ['number'],
  changeColumns: ['payment_id'],
  values: (state) => ({ number: state.number, payment_id: state.payment?.reference ?? null }),
  expiringStatuses: ['pending', 'failed'],
};
