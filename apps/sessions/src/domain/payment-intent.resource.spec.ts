import { newPaymentId } from '@payments/ids';
import { at, intentIn, newIntent, NEW_ORDER_42_INTENT } from './payment-intent.fixtures';
import { paymentIntentResourceAt, toPaymentIntentResource } from './payment-intent.resource';

const options = { checkoutBaseUrl: 'https://pay.example.com', now: at(60) };

const SPEC_FIELDS = [
  'id',
  'object',
  'status',
  'amount',
  'currency',
  'fee',
  'net_amount',
  'payment_method',
  'external_ref',
  'paid',
  'available_methods',
  'checkout_url',
  'crypto',
  'created_at',
  'expires_at',
  'paid_at',
];

describe('toPaymentIntentResource', () => {
  it('shows a new intent exactly as the spec describes it', () => {
    const intent = newIntent({ amountCents: 7400, externalRef: 'order-42', description: 'Order 42', metadata: { order: '42' } });
    expect(toPaymentIntentResource(intent.state, options)).toEqual({
      id: intent.id,
      ...NEW_ORDER_42_INTENT,
      checkout_url: `https://pay.example.com/checkout/${intent.id}`,
      crypto: {
        address: null,
        requested_amount: '74.00',
        received_amount: '0.00',
        remaining_amount: '74.00',
        overpayment_amount: '0.00',
        txid: null,
      },
      created_at: '2025-03-01T10:00:00.000Z',
      expires_at: '2025-03-01T10:30:00.000Z',
      paid_at: null,
      payment_id: null,
      description: 'Order 42',
      metadata: { order: '42' },
    });
  });

  it('has the spec fields plus payment_id, description and metadata, nothing else', () => {
    const resource = toPaymentIntentResource(newIntent().state, options);
    expect(Object.keys(resource).sort()).toEqual([...SPEC_FIELDS, 'payment_id', 'description', 'metadata'].sort());
    expect(Object.keys(resource.crypto).sort()).toEqual(
      ['address', 'requested_amount', 'received_amount', 'remaining_amount', 'overpayment_amount', 'txid'].sort(),
    );
  });

  it('shows fee, net, paid, paid_at and payment_id once paid', () => {
    const processing = intentIn('processing');
    const paymentId = newPaymentId();
    const paid = processing.apply(processing.succeed({ paymentId, now: at(20) }));
    expect(toPaymentIntentResource(paid.state, options)).toMatchObject({
      status: 'succeeded',
      amount: '74.00',
      fee: '0.37',
      net_amount: '73.63',
      payment_method: 'togo',
      paid: true,
      paid_at: '2025-03-01T10:00:20.000Z',
      payment_id: paymentId,
    });
  });

  it.each(['processing', 'failed'] as const)('shows a %s intent unpaid with its method', (status) => {
    const resource = toPaymentIntentResource(intentIn(status).state, options);
    expect(resource).toMatchObject({ status, payment_method: 'togo', paid: false, paid_at: null, fee: '0.00', net_amount: '74.00' });
  });

  it('never shows a live state after expires_at', () => {
    const resource = toPaymentIntentResource(intentIn('processing').state, { ...options, now: at(1800) });
    expect(resource.status).toBe('expired');
    expect(resource.paid).toBe(false);
  });

  it('shows crypto amounts as MoneyStrings', () => {
    let intent = newIntent({ amountCents: 1050 });
    intent = intent.apply(intent.assignCryptoAddress('0xabc', at(1)));
    intent = intent.apply(intent.recordCryptoTransfer({ txid: '0xt1', amountCents: 1100, now: at(2) }));
    expect(toPaymentIntentResource(intent.state, options).crypto).toEqual({
      address: '0xabc',
      requested_amount: '10.50',
      received_amount: '11.00',
      remaining_amount: '0.00',
      overpayment_amount: '0.50',
      txid: '0xt1',
    });
  });

  it('builds checkout_url from a base with a trailing slash', () => {
    const intent = newIntent();
    expect(toPaymentIntentResource(intent.state, { ...options, checkoutBaseUrl: 'http://localhost:3000/' }).checkout_url).toBe(
      `http://localhost:3000/checkout/${intent.id}`,
    );
  });

  it('keeps the amounts exact at the edges', () => {
    expect(toPaymentIntentResource(newIntent({ amountCents: 50 }).state, options).amount).toBe('0.50');
    expect(toPaymentIntentResource(newIntent({ amountCents: 99_999_999 }).state, options).amount).toBe('999999.99');
  });
});

describe('paymentIntentResourceAt', () => {
  it('shows a live state rendered earlier as expired once expires_at has passed, and nothing else changes', () => {
    const rendered = toPaymentIntentResource(intentIn('processing').state, options);
    expect(paymentIntentResourceAt(rendered, at(1799))).toBe(rendered);
    expect(paymentIntentResourceAt(rendered, at(1800))).toEqual({ ...rendered, status: 'expired' });
  });

  it('keeps final states', () => {
    for (const status of ['succeeded', 'cancelled'] as const) {
      const rendered = toPaymentIntentResource(intentIn(status).state, options);
      expect(paymentIntentResourceAt(rendered, at(10_000)).status).toBe(status);
    }
  });
});
