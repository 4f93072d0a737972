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
    expect(checkoutView(intent('requires_payment_method'), 'Shop', false)).toMatchObject({ page: 'pay', declined: false, test: true, methods: ['togo', 'lahza'], cancellable: true });
    expect(checkoutView(intent('requires_payment_method'), 'Shop', true)).toMatchObject({ page: 'pay', declined: true });
    // A declined payment may be tried again until expiry.
    expect(checkoutView(intent('failed'), 'Shop', false)).toMatchObject({ page: 'pay', declined: true });
    expect(checkoutView(intent('processing'), 'Shop', false).page).toBe('processing');
    // Part of a crypto payment arrived: the rest can be sent, nothing else, no cancel.
    const partly = intent('processing', {
      payment_method: 'crypto',
      crypto: { address: '0xabc', requested_amount: '10.00', received_amount: '4.00', remaining_amount: '6.00', overpayment_amount: '0.00', txid: 'tx' },
    });
    expect(checkoutView(partly, 'Shop', false)).toMatchObject({ page: 'pay', methods: ['crypto'], cancellable: false, summary: { crypto: { received: '4.00', remaining: '6.00' } } });
    expect(checkoutView(intent('succeeded', { payment_id: '123' }), 'Shop', false)).toMatchObject({ page: 'paid', summary: { reference: '123', merchantName: 'Shop' } });
    expect(checkoutView(intent('cancelled'), 'Shop', false).page).toBe('cancelled');
    expect(checkoutView(intent('expired'), 'Shop', false).page).toBe('expired');
  });

  it('invoices: live methods without sandboxes, cancel only where the merchant said where to go', () => {
    expect(checkoutView(invoice('pending', null), 'Shop', false)).toMatchObject({ page: 'pay', test: false, methods: ['wallet', 'lahza'], cancellable: false });
    expect(checkoutView(invoice('pending', 'https://shop.example/cart'), 'Shop', false)).toMatchObject({ cancellable: true });
    expect(checkoutView(invoice('paid', null), 'Shop', false).page).toBe('paid');
    expect(checkoutView(invoice('expired', null), 'Shop', false).page).toBe('expired');
  });
});
