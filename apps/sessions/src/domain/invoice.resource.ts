// The spec's Invoice JSON exactly (the contract's InvoiceResource). The spec types external_ref and description as
// strings (not nullable), so an invoice created without them shows "".
import type { InvoicePaymentResource, InvoiceResource } from '@payments/contracts';
import { formatMoney } from '@payments/money';
import { checkoutUrl } from './checkout-url';
import { Invoice, type InvoiceState } from './invoice.aggregate';

export type { InvoiceResource };

export interface InvoiceResourceOptions {
  readonly checkoutBaseUrl: string;
  readonly now: Date;
}

export function toInvoicePaymentResource(state: InvoiceState): InvoicePaymentResource | null {
  const { payment } = state;
  if (state.status !== 'paid' || payment === null) return null;
  return {
    reference: payment.reference,
    method: payment.method,
    payer_name: payment.payer.name,
    payer_email: payment.payer.email,
    payer_phone: payment.payer.phone,
    payer_country: payment.payer.country,
    paid_at: payment.paidAt,
  };
}

export function toInvoiceResource(state: InvoiceState, options: InvoiceResourceOptions): InvoiceResource {
  const paid = state.status === 'paid';
  return {
    id: state.id,
    number: state.number,
    status: Invoice.fromState(state).effectiveStatus(options.now),
    environment: state.environment,
    amount: formatMoney(state.amountCents),
    currency: state.currency,
    fee: formatMoney(paid ? state.feeCents : 0),
    net: formatMoney(paid ? state.netCents : state.amountCents),
    external_ref: state.externalRef ?? '',
    description: state.description ?? '',
    checkout_url: checkoutUrl(options.checkoutBaseUrl, state.id),
    created_at: state.createdAt,
    expires_at: state.expiresAt,
    paid_at: paid ? state.paidAt : null,
    metadata: state.metadata,
    payment: toInvoicePaymentResource(state),
  };
}

export { invoiceResourceAt } from '@payments/contracts';
