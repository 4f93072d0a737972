// How a stored resource reads at a given time. A resource is rendered when it changes; past its expires_at a
// session that is not final already reads as expired, before the expiry job has written that. Every reader of
// stored resources (sessions' read model, the gateway's cache) shows them through these.
import type { InvoiceResource, InvoiceStatus, PaymentIntentResource, PaymentIntentStatus } from './sessions.contract';

export const PAYMENT_INTENT_FINAL_STATUSES: readonly PaymentIntentStatus[] = ['succeeded', 'cancelled', 'expired'];
export const INVOICE_FINAL_STATUSES: readonly InvoiceStatus[] = ['paid', 'expired'];

export function isFinalPaymentIntentStatus(status: PaymentIntentStatus): boolean {
  return PAYMENT_INTENT_FINAL_STATUSES.includes(status);
}

export function isFinalInvoiceStatus(status: InvoiceStatus): boolean {
  return INVOICE_FINAL_STATUSES.includes(status);
}

export function paymentIntentResourceAt(resource: PaymentIntentResource, now: Date): PaymentIntentResource {
  if (isFinalPaymentIntentStatus(resource.status) || now.getTime() < Date.parse(resource.expires_at)) return resource;
  return { ...resource, status: 'expired' };
}

export function invoiceResourceAt(resource: InvoiceResource, now: Date): InvoiceResource {
  if (isFinalInvoiceStatus(resource.status) || now.getTime() < Date.parse(resource.expires_at)) return resource;
  return { ...resource, status: 'expired' };
}
