import type { InvoiceEventData, PaymentIntentEventData } from '@payments/contracts';
import { EventValidationError, validateEnvelope } from '@payments/events';
import { newPaymentId } from '@payments/ids';
import { envelopesOf } from '../command-pipeline/testing/envelopes';
import { PaymentIntent, type Invoice, type InvoiceEvent, type InvoiceResource, type InvoiceState, type PaymentIntentEvent, type PaymentIntentResource, type PaymentIntentState } from '../domain';
import { newInvoice } from '../domain/invoice.fixtures';
import { at, newIntent } from '../domain/payment-intent.fixtures';
import { invoiceKind } from '../invoices/invoice.kind';
import { paymentIntentKind } from './payment-intent.kind';

const context = {
  checkoutBaseUrl: 'https://pay.example.com',
  now: at(30),
  metadata: { merchant_id: 'acct_1', environment: 'test' as const, correlation_id: 'req_1', causation_id: null },
};

const intents = paymentIntentKind('https://pay.example.com');
const invoices = invoiceKind('https://pay.example.com');
const paymentIntentEnvelopes = (before: PaymentIntent | null, events: PaymentIntentEvent[], ctx: typeof context) =>
  envelopesOf<PaymentIntent, PaymentIntentState, PaymentIntentEvent, PaymentIntentResource, PaymentIntentEventData>(intents, before, events, ctx);
const invoiceEnvelopes = (before: Invoice | null, events: InvoiceEvent[], ctx: typeof context) =>
  envelopesOf<Invoice, InvoiceState, InvoiceEvent, InvoiceResource, InvoiceEventData>(invoices, before, events, ctx);

describe('paymentIntentEnvelopes', () => {
  it('maps a simulated crypto success to processing and succeeded, skipping the internal transfer event', () => {
    const intent = newIntent({ environment: 'test' });
    const events = intent.simulate({ result: 'succeeded', method: 'crypto', paymentId: newPaymentId(), now: at(30) });
    expect(events.map((e) => e.type)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentCryptoTransferReceived', 'PaymentIntentSucceeded']);
    const envelopes = paymentIntentEnvelopes(intent, events, context);
    expect(envelopes.map((e) => [e.type, e.sequence])).toEqual([
      ['payment_intent.processing', 2],
      ['payment_intent.succeeded', 4],
    ]);
    const paid = intent.apply(events);
    expect(envelopes[1]!.data.payment).toEqual({ id: paid.state.paymentId, method: 'crypto', amount: '74.00', fee: '1.11', fee_rate_bps: 150, net: '72.89', currency: 'USD' });
    for (const envelope of envelopes) expect(validateEnvelope(envelope)).toBe(envelope);
  });

  it('reports a short crypto transfer as partially_paid', () => {
    let intent = newIntent({ environment: 'test' });
    intent = intent.apply(intent.assignCryptoAddress('0xabc', at(1)));
    const events = intent.recordCryptoTransfer({ txid: '0xt1', amountCents: 1000, now: at(2) });
    const envelopes = paymentIntentEnvelopes(intent, events, context);
    expect(envelopes.map((e) => e.type)).toEqual(['payment_intent.processing', 'payment_intent.partially_paid']);
    expect(envelopes[1]!.data.object.crypto.remaining_amount).toBe('64.00');
  });

  it('starts a new stream at sequence 1', () => {
    const created = PaymentIntent.create({ id: newIntent().id, merchantId: 'acct_1', environment: 'live', amountCents: 100, methods: ['togo'], now: at(0) });
    expect(paymentIntentEnvelopes(null, created, context).map((e) => [e.type, e.sequence])).toEqual([['payment_intent.created', 1]]);
  });
});

describe('published data schemas', () => {
  it('reject an event whose object is not the resource', () => {
    const intent = newIntent({ environment: 'test' });
    const [envelope] = paymentIntentEnvelopes(intent, intent.cancel({ now: at(5) }), context);
    const broken = { ...envelope!, data: { object: { ...envelope!.data.object, amount: 74, status: 'gone' } } };
    expect(() => validateEnvelope(broken)).toThrow(EventValidationError);
    expect(() => validateEnvelope(broken)).toThrow(/data\/object\/status must be equal to one of the allowed values/);
    expect(() => validateEnvelope(broken)).toThrow(/data\/object\/amount must be string/);
  });

  it('reject a payment without its amounts', () => {
    const invoice = newInvoice({ environment: 'test' });
    const [envelope] = invoiceEnvelopes(invoice, invoice.pay({ paymentId: newPaymentId(), method: 'wallet', now: at(5) }), context);
    const broken = { ...envelope!, data: { ...envelope!.data, payment: { id: '1', method: 'wallet' } } };
    expect(() => validateEnvelope(broken)).toThrow(/data\/payment must have required property 'amount'/);
  });
});
