import { LeaseBook, renewalIntervalMs } from './lease-book';

describe('LeaseBook', () => {
  it('renews every quarter of the lease', () => {
    expect(renewalIntervalMs(2000)).toBe(500);
    expect(renewalIntervalMs(1000)).toBe(250);
    expect(new LeaseBook(2000).renewEveryMs).toBe(500);
  });

  it('leaves a lease set less than half a tick ago for the next tick, and asks for older ones by delivery and token', () => {
    const book = new LeaseBook(2000);
    book.add('wd_a', 'claim-1', 0);
    book.add('wd_b', 'claim-1', 0);
    book.add('wd_c', 'claim-2', 400);
    expect(book.due(200)).toEqual({ ids: [], tokens: [] });
    expect(book.due(500)).toEqual({ ids: ['wd_a', 'wd_b'], tokens: ['claim-1', 'claim-1'] });
    expect(book.due(650)).toEqual({ ids: ['wd_a', 'wd_b', 'wd_c'], tokens: ['claim-1', 'claim-1', 'claim-2'] });
  });

  it('counts a renewal from when it was sent, and asks again for what it did not renew', () => {
    const book = new LeaseBook(2000);
    book.add('wd_a', 'claim-1', 0);
    book.add('wd_b', 'claim-1', 0);
    // Sent at 500, answered later: only wd_a was extended (wd_b's row was busy, or taken over).
    book.renewed(['wd_a'], 500);
    expect(book.due(1000)).toEqual({ ids: ['wd_a', 'wd_b'], tokens: ['claim-1', 'claim-1'] });
    expect(book.due(600).ids).toEqual(['wd_b']);
    expect(book.lapsed(1999)).toEqual([]);
    expect(book.lapsed(2000)).toEqual(['wd_b']);
    expect(book.lapsed(2500)).toEqual(['wd_a', 'wd_b']);
  });

  it('forgets an attempt once it ended, even if a renewal sent before then answers for it', () => {
    const book = new LeaseBook(2000);
    book.add('wd_a', 'claim-1', 0);
    book.remove('wd_a');
    book.renewed(['wd_a'], 500);
    expect(book.size).toBe(0);
    expect(book.due(5000).ids).toEqual([]);
    expect(book.lapsed(5000)).toEqual([]);
  });
});
