import { outcomeOf } from './payment-provider';

const verified = (over: object = {}) => ({ reference: 'att_1', status: 'succeeded' as const, amountCents: 7400, currency: 'USD', reason: null, ...over });

describe('outcomeOf', () => {
  it('is a success only for the amount and currency the session asked', () => {
    expect(outcomeOf(verified(), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'succeeded' });
    expect(outcomeOf(verified({ currency: 'usd' }), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'succeeded' });
    expect(outcomeOf(verified({ amountCents: 740 }), { amountCents: 7400, currency: 'USD' })).toEqual({
      outcome: 'failed',
      reason: 'amount_mismatch: provider verified 740 USD, the session is 7400 USD',
    });
    expect(outcomeOf(verified({ currency: 'GHS' }), { amountCents: 7400, currency: 'USD' })).toMatchObject({ outcome: 'failed' });
  });

  it('passes on a decline (not over: the page may still be paid) or a failure with its reason, and waits on pending', () => {
    expect(outcomeOf(verified({ status: 'declined', reason: 'Declined' }), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'declined', reason: 'Declined' });
    expect(outcomeOf(verified({ status: 'failed', reason: 'insufficient funds' }), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'failed', reason: 'insufficient funds' });
    expect(outcomeOf(verified({ status: 'pending' }), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'pending' });
  });
});
