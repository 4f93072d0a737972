import { isSameRefundRequest, paymentStatus, settlementOf } from './refund-policy';

describe('refund policy', () => {
  it('completes test refunds and service-balance refunds at once, live lahza refunds through the provider, live crypto not yet', () => {
    expect(settlementOf({ environment: 'test', method: 'lahza' })).toBe('at_once');
    expect(settlementOf({ environment: 'test', method: 'crypto' })).toBe('at_once');
    expect(settlementOf({ environment: 'live', method: 'togo' })).toBe('at_once');
    expect(settlementOf({ environment: 'live', method: 'wallet' })).toBe('at_once');
    expect(settlementOf({ environment: 'live', method: 'lahza' })).toBe('provider');
    expect(settlementOf({ environment: 'live', method: 'crypto' })).toBe('unavailable');
  });

  it('names a payment by what its completed refunds returned', () => {
    expect(paymentStatus(1500, 0)).toBe('succeeded');
    expect(paymentStatus(1500, 1)).toBe('partially_refunded');
    expect(paymentStatus(1500, 1499)).toBe('partially_refunded');
    expect(paymentStatus(1500, 1500)).toBe('refunded');
  });
});

describe('isSameRefundRequest', () => {
  const made = { paymentId: '384347409295007049', amountCents: 500, reason: 'damaged' };
  it('takes a retry of the request that made the refund, and one that leaves amount or reason out', () => {
    expect(isSameRefundRequest(made, { paymentId: '384347409295007049', amountCents: 500, reason: 'damaged' })).toBe(true);
    expect(isSameRefundRequest(made, { paymentId: '384347409295007049', amountCents: null, reason: undefined })).toBe(true);
  });
  it('refuses another payment, amount or reason', () => {
    expect(isSameRefundRequest(made, { paymentId: '384347409295007050', amountCents: 500, reason: 'damaged' })).toBe(false);
    expect(isSameRefundRequest(made, { paymentId: '384347409295007049', amountCents: 400, reason: 'damaged' })).toBe(false);
    expect(isSameRefundRequest(made, { paymentId: '384347409295007049', amountCents: 500, reason: 'late' })).toBe(false);
    expect(isSameRefundRequest({ ...made, reason: null }, { paymentId: '384347409295007049', amountCents: 500, reason: 'late' })).toBe(false);
  });
});
