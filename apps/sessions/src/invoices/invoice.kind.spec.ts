import type { InvoiceEventData } from '@payments/contracts';
import { validateEnvelope } from '@payments/events';
import { newPaymentId } from '@payments/ids';
import { envelopesOf } from '../command-pipeline/testing/envelopes';
import type { Invoice, InvoiceEvent, InvoiceResource, InvoiceState } from '../domain';
import { invoiceIn, newInvoice } from '../domain/invoice.fixtures';
import { at } from '../domain/payment-intent.fixtures';
import { invoiceKind } from './invoice.kind';

const context = {
  checkoutBaseUrl: 'https://pay.example.com',
  now: at(30),
  metadata: { merchant_id: 'acct_1', environment: 'test' as const, correlation_id: 'req_1', causation_id: null },
};

const invoiceEnvelopes = (before: Invoice | null, events: InvoiceEvent[], ctx: typeof context) =>
  envelopesOf<Invoice, InvoiceState, InvoiceEvent, InvoiceResource, InvoiceEventData>(invoiceKind(ctx.checkoutBaseUrl), before, events, ctx);

describe('invoiceEnvelopes', () => {
  it('maps each invoice event to its public type with the resource and, when paid, the payment', () => {
    const invoice = newInvoice({ environment: 'test' });
    const events = invoice.simulate({ result: 'paid', paymentId: newPaymentId(), now: at(30) });
    const [paid] = invoiceEnvelopes(invoice, events, context);
    expect(paid).toMatchObject({ type: 'invoice.paid', aggregate_type: 'invoice', sequence: 2, data: { object: { status: 'paid' }, payment: { method: 'wallet', fee: '0.37' } } });
    expect(validateEnvelope(paid)).toBe(paid);
    const failed = invoiceIn('failed');
    expect(invoiceEnvelopes(failed, failed.expire(at(86_400)), context).map((e) => e.type)).toEqual(['invoice.expired']);
  });
});
