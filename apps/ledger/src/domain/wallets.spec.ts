import {
  bookPayment,
  bookRefund,
  bookWalletCredit,
  bookWalletPayment,
  bookWalletTopUp,
  BookingRefused,
  walletAccount,
  walletCovers,
  walletInEnvironment,
  walletShownCents,
  walletTransactionType,
  type WalletPayment,
} from './index';

const WALLET = 'wal_test_abcdefghijklmnopqrstuvwx';
const at = '2026-11-27T10:00:00.000Z';
const payment = (overrides: Partial<WalletPayment> = {}): WalletPayment => ({
  walletId: WALLET,
  merchantId: 'acct_a',
  environment: 'test',
  source: 'pi_test_1',
  paymentId: '42',
  method: 'togo',
  amount: '74.00',
  fee: '0.37',
  net: '73.63',
  feeRateBps: 50,
  occurredAt: at,
  ...overrides,
});
const entriesOf = (posting: { entries: ReadonlyArray<{ account: { id: string }; amountCents: number }> }) =>
  Object.fromEntries(posting.entries.map((e) => [e.account.id, e.amountCents]));

describe('wallet accounts', () => {
  it('are credit-normal, one balance row, named by the wallet and its environment', () => {
    expect(walletAccount(WALLET, 'test')).toEqual({ id: `${WALLET}:test:wallet`, environment: 'test', normal: 'credit', hot: false });
    expect(walletInEnvironment(WALLET, 'test')).toBe(true);
    expect(walletInEnvironment(WALLET, 'live')).toBe(false);
  });

  it('cover a payment of at most their balance', () => {
    expect(walletCovers(7400n, 7400)).toBe(true);
    expect(walletCovers(7399n, 7400)).toBe(false);
    expect(walletCovers(0n, 1)).toBe(false);
  });
});

describe('a wallet payment', () => {
  it('debits the wallet with the gross and credits the merchant with the net and fee revenue with the fee', () => {
    const { posting } = bookWalletPayment(payment());
    expect(entriesOf(posting)).toEqual({ [`${WALLET}:test:wallet`]: 7400, 'acct_a:test:available': -7363, 'platform:test:fee_revenue': -37 });
    expect(posting).toMatchObject({ kind: 'payment', walletId: WALLET, merchantId: 'acct_a', paymentId: '42', source: 'pi_test_1', amountCents: 7400, feeCents: 37, netCents: 7363 });
  });

  it("has the id the payment's event would book, so that event finds it posted", () => {
    const fromEvent = bookPayment({
      eventId: 'evt_1',
      merchantId: 'acct_a',
      environment: 'test',
      source: 'pi_test_1',
      occurredAt: at,
      payment: { id: '42', method: 'togo', amount: '74.00', fee: '0.37', net: '73.63', currency: 'USD', fee_rate_bps: 50 },
    });
    expect(bookWalletPayment(payment()).posting.id).toBe(fromEvent.id);
  });

  it.each([
    ['a fee at another rate', { fee: '0.74', net: '73.26' }],
    ['a net that is not amount − fee', { net: '73.00' }],
    ['a zero amount', { amount: '0.00', fee: '0.00', net: '0.00' }],
  ])('is refused with %s', (_what, overrides) => {
    expect(() => bookWalletPayment(payment(overrides))).toThrow(BookingRefused);
  });

  it('takes the session rate, a merchant-specific one included', () => {
    expect(bookWalletPayment(payment({ method: 'wallet', feeRateBps: 120, fee: '0.89', net: '73.11' })).amounts).toMatchObject({ feeCents: 89, rateBps: 120 });
  });
});

describe('credits and top-ups', () => {
  it('credit the wallet from wallet_funding, once per wallet and key, without a merchant', () => {
    const credit = bookWalletCredit({ walletId: WALLET, environment: 'test', key: 'promo-1', amountCents: 500, description: 'welcome', occurredAt: at });
    expect(entriesOf(credit)).toEqual({ 'platform:test:wallet_funding': 500, [`${WALLET}:test:wallet`]: -500 });
    expect(credit).toMatchObject({ kind: 'wallet_credit', merchantId: null, walletId: WALLET, source: 'promo-1', feeCents: 0, netCents: 0, description: 'welcome' });
    const again = bookWalletCredit({ walletId: WALLET, environment: 'test', key: 'promo-1', amountCents: 900, description: null, occurredAt: at });
    expect(again.id).toBe(credit.id);
    const otherWallet = bookWalletCredit({ walletId: 'wal_test_zzzzzzzzzzzzzzzzzzzzzzzz', environment: 'test', key: 'promo-1', amountCents: 500, description: null, occurredAt: at });
    expect(otherWallet.id).not.toBe(credit.id);
  });

  it('a top-up credits the wallet from clearing (card money received), once per top-up', () => {
    const topUp = bookWalletTopUp({ walletId: WALLET, environment: 'test', topUpId: 'att123', amountCents: 2500, occurredAt: at });
    expect(entriesOf(topUp)).toEqual({ 'platform:test:clearing': 2500, [`${WALLET}:test:wallet`]: -2500 });
    expect(topUp).toMatchObject({ kind: 'wallet_top_up', merchantId: null, walletId: WALLET, source: 'att123' });
    expect(() => bookWalletTopUp({ walletId: WALLET, environment: 'test', topUpId: 'att0', amountCents: 0, occurredAt: at })).toThrow(RangeError);
  });
});

describe('a refund of a wallet payment', () => {
  it('goes back to the wallet instead of clearing, and names it', () => {
    const refund = bookRefund({ eventId: 'evt_r', refundId: 're_1', paymentId: '42', merchantId: 'acct_a', environment: 'test', amountCents: 1000, occurredAt: at, walletId: WALLET });
    expect(entriesOf(refund)).toEqual({ 'acct_a:test:available': 1000, [`${WALLET}:test:wallet`]: -1000 });
    expect(refund.walletId).toBe(WALLET);
    const card = bookRefund({ eventId: 'evt_r', refundId: 're_1', paymentId: '42', merchantId: 'acct_a', environment: 'test', amountCents: 1000, occurredAt: at });
    expect(entriesOf(card)).toEqual({ 'acct_a:test:available': 1000, 'platform:test:clearing': -1000 });
    expect(card.walletId).toBeNull();
  });
});

describe('the statement', () => {
  it('names each kind as the customer does and signs money in positive', () => {
    expect(['wallet_credit', 'wallet_top_up', 'payment', 'refund', 'adjustment'].map((k) => walletTransactionType(k as never))).toEqual(['credit', 'top_up', 'payment', 'refund', null]);
    expect(walletShownCents(7400n)).toBe(-7400n);
    expect(walletShownCents(-500n)).toBe(500n);
  });
});
