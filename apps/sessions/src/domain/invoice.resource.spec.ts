import { newPaymentId } from '@payments/ids';
import { invoiceIn, newInvoice, ORDER_42_INVOICE_UNPAID } from './invoice.fixtures';
import { invoiceResourceAt, toInvoiceResource } from './invoice.resource';
import { at } from './payment-intent.fixtures';

const options = { checkoutBaseUrl: 'https://pay.example.com', now: at(60) };

describe('toInvoiceResource', () => {
  it('shows a new invoice exactly as the spec describes it', () => {
    const invoice = newInvoice({ metadata: { order: '42' } });
    expect(toInvoiceResource(invoice.state, options)).toEqual({
      id: invoice.id,
      number: '1001',
      status: 'pending',
      environment: 'live',
      ...ORDER_42_INVOICE_UNPAID,
      checkout_url: `https://pay.example.com/checkout/${invoice.id}`,
      created_at: '2025-03-01T10:00:00.000Z',
      expires_at: '2025-03-02T10:00:00.000Z',
      paid_at: null,
      metadata: { order: '42' },
      payment: null,
    });
  });

  it('shows fee, net, paid_at and the payment once paid', () => {
    const invoice = newInvoice({ environment: 'test' });
    const paymentId = newPaymentId();
    const paid = invoice.apply(
      invoice.pay({
        paymentId,
        method: 'wallet',
        payer: { name: 'Rana K', email: 'rana@example.com', phone: '+970599123456', country: 'PS' },
        now: at(20),
      }),
    );
    expect(toInvoiceResource(paid.state, options)).toMatchObject({
      status: 'paid',
      environment: 'test',
      amount: '74.00',
      fee: '0.37',
      net: '73.63',
      paid_at: '2025-03-01T10:00:20.000Z',
      payment: {
        reference: paymentId,
        method: 'wallet',
        payer_name: 'Rana K',
        payer_email: 'rana@example.com',
        payer_phone: '+9705*****456',
        payer_country: 'PS',
        paid_at: '2025-03-01T10:00:20.000Z',
      },
    });
  });

  it('has exactly the spec fields', () => {
    const resource = toInvoiceResource(invoiceIn('paid').state, options);
    expect(Object.keys(resource).sort()).toEqual(
      [
        'id', 'number', 'status', 'environment', 'amount', 'currency', 'fee', 'net', 'external_ref', 'description',
        'checkout_url', 'created_at', 'expires_at', 'paid_at', 'metadata', 'payment',
      ].sort(),
    );
    expect(Object.keys(resource.payment ?? {}).sort()).toEqual(
      ['reference', 'method', 'payer_name', 'payer_email', 'payer_phone', 'payer_country', 'paid_at'].sort(),
    );
  });

  it('shows strings for a missing external_ref or description, and {} for no metadata', () => {
    const resource = toInvoiceResource(newInvoice({ externalRef: null, description: undefined }).state, options);
    expect(resource).toMatchObject({ external_ref: '', description: '', metadata: {} });
  });

  it('never shows pending or failed after expires_at', () => {
    expect(toInvoiceResource(invoiceIn('pending').state, { ...options, now: at(86_400) }).status).toBe('expired');
    expect(toInvoiceResource(invoiceIn('failed').state, { ...options, now: at(86_400) })).toMatchObject({
      status: 'expired',
      fee: '0.00',
      net: '74.00',
      payment: null,
    });
  });
});

describe('invoiceResourceAt', () => {
  it('shows pending or failed rendered earlier as expired from expires_at on; paid stays paid', () => {
    const pending = toInvoiceResource(invoiceIn('pending').state, options);
    expect(invoiceResourceAt(pending, at(86_399))).toBe(pending);
    expect(invoiceResourceAt(pending, at(86_400))).toEqual({ ...pending, status: 'expired' });
    const paid = toInvoiceResource(invoiceIn('paid').state, options);
    expect(invoiceResourceAt(paid, at(90_000)).status).toBe('paid');
  });
});
