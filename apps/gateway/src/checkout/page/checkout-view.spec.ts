import type { CheckoutSession } from '@payments/contracts';
import { checkoutView } from './checkout-view';

function intent(status: string, extra: Record<string, unknown> = {}): CheckoutSession {
  return {
    kind: 'payment_intent',
    merchant_id: 'acct_1',
    environment: 'test',
    success_url: null,
    cancel_url: null,
    methods: ['togo'],
    session: {
      id: 'pi_test_1',
      status,
      amount: '10.00',
      currency: 'USD',
      description: null,
      payment_id: null,
      payment_method: null,
      expires_at: '2030-01-01T00:00:00.000Z',
      available_methods: ['togo', 'lahza'],
      crypto: { address: null, requested_amount: '10.00', received_amount: '0.00', remaining_amount: '10.00', overpayment_amount: '0.00', txid: null },
      ...extra,
    },
  } as unknown as CheckoutSession;
}

function invoice(status: string, cancelUrl: string | null): CheckoutSession {
  return {
    kind: 'invoice',
    merchant_id: 'acct_1',
    environment: 'live',
    success_url: null,
    cancel_url: cancelUrl,
    methods: ['wallet', 'lahza'],
    session: { id: 'inv_1', status, amount: '10.00', currency: 'USD', description: 'x', payment: null, expires_at: '2030-01-01T00:00:00.000Z' },
  } as unknown as CheckoutSession;
}

describe('checkoutView', () => {
  it('maps each session state to its page', () => {
    expect(checkoutView(intent('requires_payment_method'), 'Shop', null)).toMatchObject({ page: 'pay', notice: null, test: true, methods: ['togo', 'lahza'], cancellable: true, cryptoTransfers: true });
    expect(checkoutView(intent('requires_payment_method'), 'Shop', 'declined')).toMatchObject({ page: 'pay', notice: 'declined' });
    // A declined payment may be tried again until expiry.
    expect(checkoutView(intent('failed'), 'Shop', null)).toMatchObject({ page: 'pay', notice: 'declined' });
    expect(checkoutView(intent('processing'), 'Shop', null).page).toBe('processing');
    // Part of a crypto payment arrived: the rest can be sent, nothing else, no cancel.
    const partly = intent('processing', {
      payment_method: 'crypto',
      crypto: { address: '0xabc', requested_amount: '10.00', received_amount: '4.00', remaining_amount: '6.00', overpayment_amount: '0.00', txid: 'tx' },
    });
    expect(checkoutView(partly, 'Shop', null)).toMatchObject({ page: 'pay', methods: ['crypto'], cancellable: false, summary: { crypto: { received: '4.00', remaining: '6.00' } } });
    expect(checkoutView(intent('succeeded', { payment_id: '123' }), 'Shop', null)).toMatchObject({ page: 'paid', summary: { reference: '123', merchantName: 'Shop' } });
    expect(checkoutView(intent('cancelled'), 'Shop', null).page).toBe('cancelled');
    expect(checkoutView(intent('expired'), 'Shop', null).page).toBe('expired');
  });

  it('invoices: live methods without sandboxes, cancel only where the merchant said where to go', () => {
    expect(checkoutView(invoice('pending', null), 'Shop', null)).toMatchObject({ page: 'pay', test: false, methods: ['wallet', 'lahza'], cancellable: false, cryptoTransfers: false });
    expect(checkoutView(invoice('pending', 'https://shop.example/cart'), 'Shop', null)).toMatchObject({ cancellable: true });
    expect(checkoutView(invoice('paid', null), 'Shop', null).page).toBe('paid');
    expect(checkoutView(invoice('expired', null), 'Shop', null).page).toBe('expired');
  });

  it('offers a provider where sessions has one for the environment, and its attempt while it is under way', () => {
    const live = { ...invoice('pending', null), provider_methods: ['lahza'] } as CheckoutSession;
    expect(checkoutView(live, 'Shop', null)).toMatchObject({ page: 'pay', providerMethods: ['lahza'] });
    expect(checkoutView(live, 'Shop', 'provider_unavailable')).toMatchObject({ page: 'pay', notice: 'provider_unavailable' });
    const away = { ...intent('processing', { payment_method: 'lahza' }), provider_methods: ['lahza'] } as CheckoutSession;
    expect(checkoutView(away, 'Shop', null)).toMatchObject({ page: 'processing', continueWith: 'lahza' });
    expect(checkoutView(intent('processing', { payment_method: 'togo' }), 'Shop', null)).toMatchObject({ page: 'processing', continueWith: null });
  });

  it('tells a payment that came after expiry from one in time', () => {
    const late = intent('succeeded', { payment_id: '1', paid_at: '2030-01-01T00:00:05.000Z' });
    expect(checkoutView(late, 'Shop', null)).toMatchObject({ page: 'paid', summary: { late: true } });
    const inTime = intent('succeeded', { payment_id: '1', paid_at: '2029-12-31T23:59:00.000Z' });
    expect(checkoutView(inTime, 'Shop', null)).toMatchObject({ page: 'paid', summary: { late: false } });
  });
});
