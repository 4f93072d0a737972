import { merchantAccount, platformAccount } from './accounts';
import { journalEntries } from './posting';

describe('journal entries', () => {
  const clearing = platformAccount('clearing', 'test');
  const merchant = merchantAccount('acct_a', 'test');

  it('must sum to zero', () => {
    expect(() => journalEntries('test', [{ account: clearing, amountCents: 100 }, { account: merchant, amountCents: -99 }])).toThrow(/sum to 1 cents/);
  });

  it('must stay in the posting environment', () => {
    expect(() => journalEntries('live', [{ account: clearing, amountCents: 100 }, { account: merchant, amountCents: -100 }])).toThrow(/not in the live environment/);
  });

  it('must move money between two accounts at least', () => {
    expect(() => journalEntries('test', [{ account: clearing, amountCents: 0 }])).toThrow(/two accounts/);
  });

  it('must be integer cents', () => {
    expect(() => journalEntries('test', [{ account: clearing, amountCents: 0.5 }, { account: merchant, amountCents: -0.5 }])).toThrow(/integer cents/);
  });
});
