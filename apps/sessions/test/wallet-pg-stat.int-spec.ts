import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { LEDGER_COMMANDS, LEDGER_SERVICE } from '@payments/contracts';
import { newWalletId } from '@payments/ids';
import { CommandClient, commandPattern, ServiceClient } from '@payments/platform';
import { startStack, uniqueName, type Stack } from '@payments/testing';
import { Client } from 'pg';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { intentCommand } from './support/sessions-harness';

// What one wallet payment costs Postgres across the services that see it (sessions, the ledger, refunds, the
// dispatcher; the gateway's own reads are not in it): pg_stat_statements of the stack's database, calls and
// execution time per payment, net of an idle window as long. A measurement (prints), run by hand with
// WALLET_PG_STAT=1 (needs pg_stat_statements in the database postgres); it asserts only that the payments succeeded.
// Execution time includes lock and WAL waits; WALLET_PG_STAT_WAITS=1 samples what the backends wait on.
const N = Number(process.env.WALLET_PG_STAT_PAYMENTS ?? 40);
// Between payments started (10: about 100/s).
const SPACING_MS = Number(process.env.WALLET_PG_STAT_SPACING_MS ?? 10);

(process.env.WALLET_PG_STAT ? describe : describe.skip)('wallet payment: pg_stat_statements per payment', () => {
  let stack: Stack;
  let sessions: SessionsCommandClient;
  let ledgerClient: CommandClient;
  let stats: Client;
  const merchant = uniqueName('acct');
  const payer = { name: 'Lina Haddad', email: 'lina@example.com', phone: '+97059•••4567', country: 'PS' };

  beforeAll(async () => {
    stack = await startStack(['ledger', 'sessions', 'refunds', 'webhook-dispatcher']);
    sessions = connectSessionsCommandClient([stack.services.sessions!]);
    ledgerClient = new CommandClient({ upstreams: { [LEDGER_SERVICE]: [stack.services.ledger!.commandUrl!] }, secrets: [DEVELOPMENT_COMMAND_SECRET] });
    const url = new URL(stack.db.url);
    url.pathname = '/postgres';
    stats = new Client({ connectionString: url.toString() });
    await stats.connect();
  }, 180_000);

  afterAll(async () => {
    await stats?.end();
    await sessions?.close();
    await ledgerClient?.close();
    await stack?.stop();
  });

  type Row = { query: string; calls: number; exec: number; plans: number; plan: number };
  async function snapshot(): Promise<Map<string, Row>> {
    const { rows } = await stats.query<{ queryid: string; query: string; calls: string; exec: number; plans: string; plan: number }>(
      `SELECT s.queryid::text, s.query, s.calls::text, s.total_exec_time AS exec, s.plans::text, s.total_plan_time AS plan
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [new URL(stack.db.url).pathname.slice(1)],
    );
    return new Map(rows.map((r) => [r.queryid, { query: r.query, calls: Number(r.calls), exec: r.exec, plans: Number(r.plans), plan: r.plan }]));
  }
  function minus(after: Map<string, Row>, before: Map<string, Row>): Map<string, Row> {
    const out = new Map<string, Row>();
    for (const [id, a] of after) {
      const b = before.get(id);
      out.set(id, { query: a.query, calls: a.calls - (b?.calls ?? 0), exec: a.exec - (b?.exec ?? 0), plans: a.plans - (b?.plans ?? 0), plan: a.plan - (b?.plan ?? 0) });
    }
    return out;
  }

  it('prints calls and time per wallet payment by statement and by schema', async () => {
    const ledger = new ServiceClient(ledgerClient, 10_000);
    // A wallet per payment, as customers pay (one wallet's payments queue on its row lock: waiting, not work).
    const wallets: string[] = [];
    const intents: Array<{ id: string }> = [];
    for (let i = 0; i < N; i += 1) {
      const wallet = newWalletId('test');
      wallets.push(wallet);
      await ledger.request(commandPattern(LEDGER_SERVICE, LEDGER_COMMANDS.creditWallet), { wallet_id: wallet, environment: 'test', amount: '100.00', key: uniqueName('c') }, { correlationId: uniqueName('r') });
      // One shop (the checkout bench's case) unless asked for a shop per payment (no queue on its balance shards).
      const shop = process.env.WALLET_PG_STAT_SHOPS === 'many' ? uniqueName('acct') : merchant;
      intents.push(await sessions.request('payment-intents.create', intentCommand(shop, {}, { amount: '10.00' })));
    }
    await new Promise((r) => setTimeout(r, 4000));

    const t0 = await snapshot();
    // What the stack's backends wait on while the payments run, sampled (a statement's time includes its waits).
    const waits = new Map<string, number>();
    // Only when asked (WALLET_PG_STAT_WAITS=1): sampling every 2 ms costs CPU the payments then lack.
    let sampling = process.env.WALLET_PG_STAT_WAITS === '1';
    const sampler = (async () => {
      const sampleClient = new Client({ connectionString: stack.db.url });
      await sampleClient.connect();
      try {
        while (sampling) {
          const { rows } = await sampleClient.query<{ wait: string; query: string }>(
            `SELECT coalesce(wait_event_type || ':' || wait_event, 'cpu') AS wait, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 60) AS query FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
          );
          for (const row of rows) waits.set(`${row.wait}  ${row.query}`, (waits.get(`${row.wait}  ${row.query}`) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 2));
        }
      } finally {
        await sampleClient.end();
      }
    })();
    const started = Date.now();
    // At about 100/s, as the target load comes (consumers batch what arrives within their linger).
    await Promise.all(
      intents.map(async (intent, i) => {
        await new Promise((r) => setTimeout(r, i * SPACING_MS));
        expect(await sessions.request('checkout.pay-from-wallet', { id: intent.id, wallet_id: wallets[i]!, payer })).toMatchObject({ outcome: 'succeeded' });
      }),
    );
    sampling = false;
    await sampler;
    await new Promise((r) => setTimeout(r, 4000));
    const t1 = await snapshot();
    const windowMs = Date.now() - started;
    await new Promise((r) => setTimeout(r, windowMs));
    const t2 = await snapshot();

    const paid = minus(t1, t0);
    const idle = minus(t2, t1);
    const net = [...paid].map(([id, r]) => {
      const i = idle.get(id);
      return { ...r, calls: r.calls - (i?.calls ?? 0), exec: r.exec - (i?.exec ?? 0), plan: r.plan - (i?.plan ?? 0), plans: r.plans - (i?.plans ?? 0) };
    });
    const schemaOf = (q: string) => /"(sessions|ledger|refunds|webhooks|gateway)"\./.exec(q)?.[1] ?? (/pg_stat_statements|pg_stat_activity/.test(q) ? 'measurement' : 'other');
    const bySchema = new Map<string, { calls: number; exec: number; plan: number }>();
    for (const r of net) {
      const s = schemaOf(r.query);
      const agg = bySchema.get(s) ?? { calls: 0, exec: 0, plan: 0 };
      agg.calls += r.calls;
      agg.exec += r.exec;
      agg.plan += r.plan;
      bySchema.set(s, agg);
    }
    const total = net.filter((r) => schemaOf(r.query) !== 'measurement').reduce((a, r) => ({ calls: a.calls + r.calls, exec: a.exec + r.exec, plan: a.plan + r.plan }), { calls: 0, exec: 0, plan: 0 });
    const f = (x: number, d = 2) => (x / N).toFixed(d);
    console.log(
      [
        `wallet payments ${N}, window ${windowMs} ms; per payment, net of idle: ${f(total.calls)} calls, ${f(total.exec, 3)} ms exec, ${f(total.plan, 3)} ms plan`,
        ...[...bySchema].sort((a, b) => b[1].exec - a[1].exec).map(([s, a]) => `  ${s.padEnd(12)} ${f(a.calls).padStart(6)} calls  ${f(a.exec, 3).padStart(7)} ms exec  ${f(a.plan, 3)} ms plan`),
        'top statements (calls/payment, exec ms/payment, mean ms):',
        ...net
          .filter((r) => r.calls > 0 || r.exec > 0.05 * N)
          .sort((a, b) => b.exec - a.exec)
          .slice(0, 30)
          .map((r) => `  ${f(r.calls).padStart(6)}  ${f(r.exec, 3).padStart(7)}  ${(r.calls > 0 ? r.exec / r.calls : 0).toFixed(3).padStart(6)}  ${r.query.replace(/\s+/g, ' ').slice(0, 150)}`),
        'backends seen active while paying (samples: wait, statement):',
        ...[...waits].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([what, n]) => `  ${String(n).padStart(5)}  ${what}`),
      ].join('\n'),
    );
    expect(t1.size).toBeGreaterThan(0);
  });
});
