import { lookup as systemLookup } from 'node:dns/promises';
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { startTestDnsServer, waitFor, type TestDnsServer } from '@payments/testing';
import { HostResolver, parseNameServers } from '../src';

// HostResolver against a real name server on loopback UDP that answers some names and drops the queries of
// others, as a merchant's broken name server would.
describe('HostResolver', () => {
  let dns: TestDnsServer;
  const settle = <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: NodeJS.ErrnoException) => ({ error }));

  beforeAll(async () => {
    dns = await startTestDnsServer({
      zone: { 'hooks.shop.test': ['93.184.216.34', '2606:2800:220:1::1'], 'v4only.shop.test': ['93.184.216.35'], 'short.shop.test': ['93.184.216.36'] },
      drops: (name) => name.endsWith('.dropped.test'),
      ttlSeconds: 1,
    });
  });
  afterAll(() => dns.close());

  const resolver = (options: ConstructorParameters<typeof HostResolver>[0] = {}) => new HostResolver({ servers: [dns.address], timeoutMs: 300, tries: 2, ...options });
  const asked = (name: string) => dns.queries.filter((q) => q.endsWith(` ${name}`)).length;

  it('answers every address of both families, IPv4 first, and asks once per TTL', async () => {
    const r = resolver();
    expect(await r.lookup('hooks.shop.test')).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(await r.lookup('HOOKS.shop.test.')).toHaveLength(2);
    expect(asked('hooks.shop.test')).toBe(2); // one A and one AAAA query, the second lookup from the cache
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the answers' TTL is 1 s
    await r.lookup('hooks.shop.test');
    expect(asked('hooks.shop.test')).toBe(4);
  });

  it('a name with records of one family only resolves to those', async () => {
    expect(await resolver().lookup('v4only.shop.test')).toEqual([{ address: '93.184.216.35', family: 4 }]);
  });

  it('many callers of one name share one query', async () => {
    const r = resolver();
    const answers = await Promise.all(Array.from({ length: 20 }, () => r.lookup('short.shop.test', { owner: 'acct_1' })));
    expect(answers.every((a) => a[0]!.address === '93.184.216.36')).toBe(true);
    expect(asked('short.shop.test')).toBe(2);
  });

  it('a name that does not exist fails with ENOTFOUND, remembered briefly', async () => {
    const r = resolver();
    await expect(r.lookup('missing.shop.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(r.lookup('missing.shop.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(asked('missing.shop.test')).toBe(2);
  });

  it('localhost is loopback without asking anyone', async () => {
    const before = dns.queries.length;
    expect(await resolver().lookup('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(dns.queries.length).toBe(before);
  });

  it('slow DNS class: a name server that drops queries fails the lookup on its own timeout, without holding the thread pool', async () => {
    const r = resolver({ timeoutMs: 400, tries: 2, perOwnerInFlight: 100 });
    // More dropped names than libuv has threads (4): with getaddrinfo these would hold every thread.
    const stuck = Array.from({ length: 12 }, (_, i) => settle(r.lookup(`n${i}.dropped.test`, { owner: `acct_${i}` })));
    await waitFor(() => dns.dropped() >= 12);
    // Meanwhile: another name answers, and the thread pool (file system, crypto, getaddrinfo) is free.
    expect(await r.lookup('v4only.shop.test', { owner: 'acct_other' })).toHaveLength(1);
    await promisify(pbkdf2)('x', 'y', 1, 32, 'sha256');
    await systemLookup('localhost');
    let finished = 0;
    for (const s of stuck) void s.then(() => (finished += 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toBe(0);

    const outcomes = await Promise.all(stuck);
    expect(outcomes.every((o) => 'error' in o && o.error.code === 'ETIMEOUT')).toBe(true);
  });

  it('slow DNS class: one owner has at most its cap of names in flight; another owner is not held behind them', async () => {
    // The timeout is the window the calm lookup must answer in before the capped three give way to the next three:
    // wide enough for a loaded machine.
    const r = resolver({ timeoutMs: 1500, tries: 1, perOwnerInFlight: 3 });
    const before = dns.dropped();
    const flood = Array.from({ length: 10 }, (_, i) => settle(r.lookup(`cap${i}.dropped.test`, { owner: 'acct_flood' })));
    await waitFor(() => dns.dropped() - before >= 6); // 3 names, A and AAAA each
    expect(r.inFlight('acct_flood')).toBe(3);
    expect(await r.lookup('hooks.shop.test', { owner: 'acct_calm' })).toHaveLength(2);
    // Only the capped three were asked so far.
    expect(dns.dropped() - before).toBe(6);
    expect((await Promise.all(flood)).every((o) => 'error' in o)).toBe(true);
    expect(dns.dropped() - before).toBe(20); // then the rest, three at a time
    expect(r.inFlight('acct_flood')).toBe(0);
  });

  it('a caller waiting for its owner slot gives up when its signal aborts, and the slot count stays right', async () => {
    const r = resolver({ timeoutMs: 400, tries: 1, perOwnerInFlight: 1 });
    const first = settle(r.lookup('w1.dropped.test', { owner: 'acct_w' }));
    const controller = new AbortController();
    const waiting = settle(r.lookup('w2.dropped.test', { owner: 'acct_w', signal: controller.signal }));
    controller.abort(new Error('attempt timed out'));
    expect(await waiting).toMatchObject({ error: { message: 'attempt timed out' } });
    expect(await first).toMatchObject({ error: { code: 'ETIMEOUT' } });
    expect(r.inFlight('acct_w')).toBe(0);
    expect(asked('w2.dropped.test')).toBe(0);
  });
});

describe('parseNameServers', () => {
  it('takes addresses with or without a port, and the empty list', () => {
    expect(parseNameServers('')).toEqual([]);
    expect(parseNameServers('10.0.0.10, 127.0.0.1:5353,[::1]:53,2001:db8::1')).toEqual(['10.0.0.10', '127.0.0.1:5353', '[::1]:53', '2001:db8::1']);
  });

  it.each(['dns.example', '127.0.0.1:0', '127.0.0.1:70000', '[127.0.0.1]:53', '::1:53x'])('refuses %s', (value) => {
    expect(() => parseNameServers(value)).toThrow(/not an address/);
  });
});

