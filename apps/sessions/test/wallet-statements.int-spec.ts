import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { LEDGER_COMMANDS, LEDGER_SERVICE } from '@payments/contracts';
import { newWalletId } from '@payments/ids';
import { CommandClient, commandPattern, ServiceClient } from '@payments/platform';
import { createTestDatabase, PgCountingProxy, startStack, tallyMinus, uniqueName, type PgTally, type Stack, type TestDatabase } from '@payments/testing';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { intentCommand } from './support/sessions-harness';

/** How many times statements whose text matches `pattern` were sent, and parsed, per a proxy's tally. */
const sum = (counts: Map<string, number>, pattern: RegExp) => [...counts].filter(([text]) => pattern.test(text)).reduce((total, [, n]) => total + n, 0);
const count = (t: PgTally, pattern: RegExp) => sum(t.statements, pattern);
const parses = (t: PgTally, pattern: RegExp) => sum(t.parses, pattern);

// What one wallet payment sends Postgres, per service: sessions and the real ledger each behind a counting proxy
// (deterministic: statements counted, not timed). Guards the request path's budget; prints the whole tally.
describe('wallet payment statements', () => {
  let stack: Stack;
  let db: TestDatabase;
  let sessions: SessionsCommandClient;
  let ledgerClient: CommandClient;
  const proxies = { sessions: new PgCountingProxy(), ledger: new PgCountingProxy() };
  const merchant = uniqueName('acct');
  const payer = { name: 'Lina Haddad', email: 'lina@example.com', phone: '+97059•••4567', country: 'PS' };

  beforeAll(async () => {
    db = await createTestDatabase('walletstmts');
    const url = (port: number) => {
      const u = new URL(db.url);
      u.port = String(port);
      return u.toString();
    };
    const sessionsPort = await proxies.sessions.start();
    const ledgerPort = await proxies.ledger.start();
    stack = await startStack(['ledger', 'sessions'], {}, { sessions: { DATABASE_URL: url(sessionsPort) }, ledger: { DATABASE_URL: url(ledgerPort) } });
    sessions = connectSessionsCommandClient([stack.services.sessions!]);
    ledgerClient = new CommandClient({ upstreams: { [LEDGER_SERVICE]: [stack.services.ledger!.commandUrl!] }, secrets: [DEVELOPMENT_COMMAND_SECRET] });
  }, 120_000);

  afterAll(async () => {
    await sessions?.close();
    await ledgerClient?.close();
    await stack?.stop();
    await proxies.sessions.stop();
    await proxies.ledger.stop();
    await db?.drop();
  });

  it("a simulated payment reads the session's stream once, as a prepared statement (parsed once per connection)", async () => {
    const N = 20;
    const intents: Array<{ id: string }> = [];
    for (let i = 0; i < N; i += 1) intents.push(await sessions.request('payment-intents.create', intentCommand(merchant, {}, { amount: '10.00' })));
    const p = proxies.sessions;
    p.reset();
    p.counting = true;
    try {
      for (const intent of intents) {
        expect(await sessions.request('payment-intents.simulate', { merchant_id: merchant, environment: 'test', id: intent.id, result: 'succeeded', method: 'lahza' })).toMatchObject({ status: 'succeeded' });
      }
    } finally {
      p.counting = false;
    }
    const read = /^SELECT position, stream_id, version, type, data, metadata, occurred_at FROM "sessions"\."events"/;
    expect(count(p.tally, read)).toBe(N);
    expect(parses(p.tally, read)).toBeLessThan(N / 2);
  });

  it('a wallet payment: 3 statements and 2 commits in sessions, one statement and no transaction in the ledger, nothing in its consumer', async () => {
    const ledger = new ServiceClient(ledgerClient, 10_000);
    const N = 20;
    const wallet = newWalletId('test');
    await ledger.request(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.creditWallet), { wallet_id: wallet, environment: 'test', amount: '1000.00', key: uniqueName('c') }, { correlationId: uniqueName('r') });
    const intents: Array<{ id: string }> = [];
    for (let i = 0; i < N; i += 1) intents.push(await sessions.request('payment-intents.create', intentCommand(merchant, {}, { amount: '10.00' })));
    await new Promise((r) => setTimeout(r, 3000));
    const window = async (work: () => Promise<void>) => {
      for (const p of Object.values(proxies)) {
        p.reset();
        p.counting = true;
      }
      const started = Date.now();
      await work();
      await new Promise((r) => setTimeout(r, 3000));
      for (const p of Object.values(proxies)) p.counting = false;
      return { ms: Date.now() - started, tallies: { sessions: proxies.sessions.tally, ledger: proxies.ledger.tally } };
    };
    const paid = await window(async () => {
      for (const intent of intents) expect(await sessions.request('checkout.pay-from-wallet', { id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'succeeded' });
    });
    const idle = await window(() => new Promise((r) => setTimeout(r, paid.ms - 3000)));
    const report = (name: string, t: PgTally) =>
      `${name}: ${(t.roundTrips / N).toFixed(2)} round trips, ${(t.commits / N).toFixed(2)} commits, ${([...t.parses.values()].reduce((a, b) => a + b, 0) / N).toFixed(2)} parses per payment\n` +
      [...t.statements].sort((a, b) => b[1] - a[1]).map(([text, n]) => `  ${(n / N).toFixed(2)}  ${text.slice(0, 160)}`).join('\n');
    const s = paid.tallies.sessions;
    const l = paid.tallies.ledger;
    // Sessions: the session's owner, its stream (read once) and the open attempt in one statement; the attempt
    // opened with `processing` and resolved with the success, each in the change's one statement.
    expect(count(s, /^SELECT s\.merchant_id AS owner_merchant_id.* FROM "sessions"\."events" e .* FROM "sessions"\."payment_intents" s LEFT JOIN "sessions"\."provider_attempts" a/)).toBe(N);
    expect(count(s, /^SELECT merchant_id, environment FROM "sessions"\."payment_intents" WHERE id = /)).toBe(0);
    expect(count(s, /^SELECT position, stream_id, version, type, data, metadata, occurred_at FROM "sessions"\."events"/)).toBe(0);
    expect(count(s, /FROM "sessions"\."provider_attempts" WHERE session_id = /)).toBe(0);
    expect(count(s, /^WITH s1 AS \(UPDATE "sessions"\."payment_intents" .*INSERT INTO "sessions"\."provider_attempts"/)).toBe(N);
    expect(count(s, /^WITH s1 AS \(UPDATE "sessions"\."payment_intents" .*UPDATE "sessions"\."provider_attempts" SET status/)).toBe(N);
    expect(count(s, /^WITH s1 AS \(UPDATE "sessions"\."payment_intents"/)).toBe(2 * N);
    expect(count(s, /^INSERT INTO "sessions"\."provider_attempts"|^UPDATE "sessions"\."provider_attempts" SET status/)).toBe(0);
    // The ledger: one statement, no transaction: the wallet's conditional debit, then the posting, its outbox row
    // and the answer. The locked way (a decline, a repeat) is not taken by a covered payment.
    expect(count(l, /^WITH gate AS \(UPDATE "ledger"\."balances" .*INSERT INTO "ledger"\."postings".*INSERT INTO "ledger"\."outbox".*INSERT INTO "ledger"\."wallet_payments"/)).toBe(N);
    expect(count(l, /^WITH locked AS/)).toBe(0);
    expect(count(l, /^INSERT INTO "ledger"\."balances" AS b/)).toBe(0);
    expect(count(l, /FOR UPDATE/)).toBe(0);
    expect(count(l, /^WITH posting AS \( INSERT INTO "ledger"\."postings"/)).toBe(0);
    expect(count(l, /^INSERT INTO "ledger"\."(outbox|wallet_payments)"/)).toBe(0);
    expect(count(l, /pg_notify/)).toBe(0);
    // The hot statements are named prepared statements: parsed once per connection, not at every payment.
    expect(parses(s, /^SELECT s\.merchant_id AS owner_merchant_id/)).toBeLessThan(N / 2);
    expect(parses(s, /^WITH s1 AS \(UPDATE "sessions"\."payment_intents"/)).toBeLessThan(N);
    expect(parses(l, /^WITH gate AS \(UPDATE "ledger"\."balances"/)).toBeLessThan(N / 2);
    // The outbox relays' read and delete too (their own connection: parsed once each).
    expect(parses(s, /"sessions"\."outbox"/) + parses(l, /"ledger"\."outbox"/)).toBeLessThan(N / 2);
    // The ledger's consumer passes over the session's success, marked in its headers as paid from a wallet: no
    // inbox row, no transaction.
    expect(count(l, /"ledger"\."(inbox|wallet_payment_sessions)"/)).toBe(0);
    expect(count(l, /^START TRANSACTION/)).toBe(0);
    console.log(
      [
        `payments ${N}, window ${paid.ms} ms`,
        report('sessions (net of idle)', tallyMinus(paid.tallies.sessions, idle.tallies.sessions)),
        report('ledger (net of idle)', tallyMinus(paid.tallies.ledger, idle.tallies.ledger)),
        report('sessions idle', idle.tallies.sessions),
        report('ledger idle', idle.tallies.ledger),
      ].join('\n'),
    );
  });
});
