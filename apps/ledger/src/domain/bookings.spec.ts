import { bookAdjustment, bookPayment, bookRefund, BookingRefused, type PaymentBooking } from './index';

const payment = (overrides: Partial<PaymentBooking['payment']> = {}): PaymentBooking => ({
  eventId: 'evt_1',
  merchantId: 'acct_a',
  environment: 'test',
  source: 'pi_test_1',
  occurredAt: '2026-11-24T10:00:00.000Z',
  payment: { id: '42', method: 'crypto', amount: '74.00', fee: '1.11', net: '72.89', currency: 'USD', fee_rate_bps: 150, ...overrides },
});

const entriesOf = (posting: { entries: ReadonlyArray<{ account: { id: string }; amountCents: number }> }) =>
  Object.fromEntries(posting.entries.map((e) => [e.account.id, e.amountCents]));

describe('booking a payment', () => {
  it('debits clearing with the gross and credits the merchant with the net and fee revenue with the fee', () => {
    const posting = bookPayment(payment());
    expect(entriesOf(posting)).toEqual({ 'platform:test:clearing': 7400, 'acct_a:test:available': -7289, 'platform:test:fee_revenue': -111 });
    expect(posting).toMatchObject({ kind: 'payment', amountCents: 7400, feeCents: 111, netCents: 7289, paymentId: '42', source: 'pi_test_1' });
  });

  it('derives its id from the payment, so another event about the same payment gives the same posting', () => {
    expect(bookPayment(payment()).id).toBe(bookPayment({ ...payment(), eventId: 'evt_other' }).id);
    expect(bookPayment(payment()).id).not.toBe(bookPayment(payment({ id: '43' })).id);
    expect(bookPayment(payment()).id).toMatch(/^txn_[A-Za-z0-9_-]{24}$/);
  });

  it("uses the method's default rate when the event carries none", () => {
    expect(bookPayment(payment({ method: 'togo', fee: '0.37', net: '73.63', fee_rate_bps: undefined })).feeCents).toBe(37);
  });

  it('rounds the fee half-up to the cent, as sessions does', () => {
    // 0.5 % of 1.01 = 0.505 cents → 1 cent.
    expect(bookPayment(payment({ method: 'togo', amount: '1.01', fee: '0.01', net: '1.00', fee_rate_bps: 50 })).feeCents).toBe(1);
  });

  it('drops a zero fee entry rather than writing a zero', () => {
    const posting = bookPayment(payment({ fee: '0.00', net: '74.00', fee_rate_bps: 0 }));
    expect(entriesOf(posting)).toEqual({ 'platform:test:clearing': 7400, 'acct_a:test:available': -7400 });
  });

  it('books a crypto payment over-paid past what a session may ask: a payment is what was received', () => {
    // 999,999.00 asked, 1,000,000.00 received, 1.5 %.
    const posting = bookPayment(payment({ amount: '1000000.00', fee: '15000.00', net: '985000.00' }));
    expect(entriesOf(posting)).toEqual({ 'platform:test:clearing': 100_000_000, 'acct_a:test:available': -98_500_000, 'platform:test:fee_revenue': -1_500_000 });
    expect(() => bookPayment(payment({ amount: '100000000000.00', fee: '1500000000.00', net: '98500000000.00' }))).toThrow(expect.objectContaining({ reason: 'amount' }));
  });

  it.each([
    ['a fee that disagrees with the rate', { fee: '1.10', net: '72.90' }, 'fee_mismatch'],
    ['a net that is not amount minus fee', { net: '72.88' }, 'fee_mismatch'],
    ['another currency', { currency: 'EUR' }, 'currency'],
    ['an unknown method', { method: 'cheque' }, 'method'],
    ['an amount that is not a MoneyString', { amount: '74.001' }, 'amount'],
  ])('refuses %s', (_, overrides, reason) => {
    expect(() => bookPayment(payment(overrides as Partial<PaymentBooking['payment']>))).toThrow(expect.objectContaining({ reason }));
    expect(() => bookPayment(payment(overrides as Partial<PaymentBooking['payment']>))).toThrow(BookingRefused);
  });
});

describe('booking a refund and an adjustment', () => {
  it('a refund debits the merchant and credits clearing; the fee stays', () => {
    const posting = bookRefund({ eventId: 'evt_r', refundId: 're_1', paymentId: '42', merchantId: 'acct_a', environment: 'live', amountCents: 500, occurredAt: '2026-11-24T10:00:00.000Z' });
    expect(entriesOf(posting)).toEqual({ 'acct_a:live:available': 500, 'platform:live:clearing': -500 });
    expect(posting.netCents).toBe(-500);
  });

  it('an adjustment moves the merchant against the adjustments account, either way', () => {
    const credit = bookAdjustment({ key: 'k1', merchantId: 'acct_a', environment: 'test', amountCents: 1234, reason: 'goodwill', occurredAt: '2026-11-24T10:00:00.000Z' });
    expect(entriesOf(credit)).toEqual({ 'acct_a:test:available': -1234, 'platform:test:adjustments': 1234 });
    const debit = bookAdjustment({ key: 'k2', merchantId: 'acct_a', environment: 'test', amountCents: -99, reason: 'chargeback fee', occurredAt: '2026-11-24T10:00:00.000Z' });
    expect(debit.netCents).toBe(-99);
  });

  it('the same key of the same merchant and environment is the same posting; another environment is not', () => {
    const at = { key: 'k1', merchantId: 'acct_a', amountCents: 1, reason: 'r', occurredAt: '2026-11-24T10:00:00.000Z' };
    expect(bookAdjustment({ ...at, environment: 'test' }).id).toBe(bookAdjustment({ ...at, environment: 'test', amountCents: 2 }).id);
    expect(bookAdjustment({ ...at, environment: 'test' }).id).not.toBe(bookAdjustment({ ...at, environment: 'live' }).id);
  });
});
