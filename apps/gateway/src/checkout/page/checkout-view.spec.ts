import type { CheckoutSession } from '@payments/contracts';
import { cryptoOptionsOf, findCryptoOption } from '../checkout-crypto';
import { checkoutView, cryptoDepositView } from './checkout-view';

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

  describe('live crypto', () => {
    const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const options = [
      { network: 'anvil', chain_id: 31337, confirmations: 3, symbol: 'USDT', token: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 6 },
      { network: 'anvil', chain_id: 31337, confirmations: 3, symbol: 'DAI', token: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', decimals: 18 },
    ];
    const withCrypto = (status: string, crypto: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
      ({
        ...intent(status, {
          available_methods: ['togo', 'crypto'],
          crypto: { address: ADDRESS, requested_amount: '10.00', received_amount: '0.00', remaining_amount: '10.00', overpayment_amount: '0.00', txid: null, ...crypto },
          ...extra,
        }),
        crypto_options: options,
      }) as CheckoutSession;

    it('offers the networks + tokens sessions answers, for an intent that lists crypto; none without them (the sandbox stays)', () => {
      expect(checkoutView(withCrypto('requires_payment_method'), 'Shop', null, cryptoOptionsOf(withCrypto('requires_payment_method')))).toMatchObject({
        page: 'pay',
        cryptoOptions: [{ chainId: 31337, network: 'anvil', symbol: 'USDT', decimals: 6, confirmations: 3 }, { symbol: 'DAI', decimals: 18 }],
      });
      expect(cryptoOptionsOf(intent('requires_payment_method'))).toBeNull();
      expect(cryptoOptionsOf({ ...intent('requires_payment_method'), crypto_options: options } as CheckoutSession)).toBeNull();
      expect(findCryptoOption(withCrypto('requires_payment_method'), '31337', options[1]!.token.toLowerCase())).toMatchObject({ symbol: 'DAI' });
      expect(findCryptoOption(withCrypto('requires_payment_method'), '1', options[1]!.token)).toBeNull();
      expect(findCryptoOption(withCrypto('requires_payment_method'), '31337', 'not-an-address')).toBeNull();
    });

    it('the deposit page asks for what is still due, in the token units of the choice (6 and 18 decimals)', () => {
      const [usdt, dai] = cryptoOptionsOf(withCrypto('requires_payment_method'))!;
      expect(cryptoDepositView(withCrypto('requires_payment_method'), 'Shop', usdt!, '/x')).toMatchObject({
        page: 'crypto',
        deposit: { address: ADDRESS, units: 10_000_000n, seen: 'requires_payment_method:0.00', href: '/x' },
      });
      expect(cryptoDepositView(withCrypto('requires_payment_method'), 'Shop', dai!, '/x')).toMatchObject({ page: 'crypto', deposit: { units: 10n * 10n ** 18n } });
      const partly = withCrypto('processing', { received_amount: '4.01', remaining_amount: '5.99', txid: '0xabc' }, { payment_method: 'crypto' });
      expect(cryptoDepositView(partly, 'Shop', usdt!, '/x')).toMatchObject({
        page: 'crypto',
        summary: { crypto: { received: '4.01', remaining: '5.99' } },
        deposit: { units: 5_990_000n, seen: 'processing:4.01' },
      });
      expect(cryptoDepositView(partly, 'Shop', dai!, '/x')).toMatchObject({ deposit: { units: 5_990_000_000_000_000_000n } });
    });

    it('no address yet, paid (over-paid too), paid late or expired: the session\'s own page', () => {
      const [usdt] = cryptoOptionsOf(withCrypto('requires_payment_method'))!;
      expect(cryptoDepositView(withCrypto('requires_payment_method', { address: null }), 'Shop', usdt!, '/x').page).toBe('pay');
      const over = withCrypto('succeeded', { received_amount: '11.00', remaining_amount: '0.00', overpayment_amount: '1.00' }, { payment_id: '1' });
      expect(cryptoDepositView(over, 'Shop', usdt!, '/x')).toMatchObject({ page: 'paid', summary: { crypto: { overpayment: '1.00' } } });
      const late = withCrypto('succeeded', { received_amount: '10.00', remaining_amount: '0.00' }, { payment_id: '1', paid_at: '2030-01-01T00:00:05.000Z' });
      expect(cryptoDepositView(late, 'Shop', usdt!, '/x')).toMatchObject({ page: 'paid', summary: { late: true } });
      expect(cryptoDepositView(withCrypto('expired'), 'Shop', usdt!, '/x')).toMatchObject({ page: 'expired', summary: { depositAddress: true } });
      // A sandbox address (no configured chain) expects no late transfer.
      expect(checkoutView({ ...withCrypto('expired'), crypto_options: [] } as CheckoutSession, 'Shop', null)).toMatchObject({ page: 'expired', summary: { depositAddress: false } });
    });
  });
});
