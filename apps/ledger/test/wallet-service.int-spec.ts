import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LEDGER_COMMANDS, LEDGER_SERVICE } from '@payments/contracts';
import { deadLetterTopic, STREAMS, topicName, type EventEnvelope } from '@payments/events';
import { envelopeHeaders, WALLET_PAYMENT_HEADER } from '@payments/messaging';
import { newWalletId } from '@payments/ids';
import { formatMoney } from '@payments/money';
import { commandPattern, CommandClient, ServiceClient } from '@payments/platform';
import { collectMessages, REPO_ROOT, startStack, testKafka, uniqueName, waitFor, type Stack } from '@payments/testing';
import { Client } from 'pg';

// Wallets as sessions and the gateway meet them: commands on the ledger's command port, the payment's and the
// refund's events on their topics, and `npm run admin -- ledger check` over the result.
describe('ledger wallets service', () => {
  const secret = randomBytes(32).toString('base64');
  let stack: Stack;
  let client: CommandClient;
  let ledger: ServiceClient;
  const merchant = `acct_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const wallet = newWalletId('test');

  const command = <T>(name: string, body: Record<string, unknown>) =>
    ledger.request(commandPattern(LEDGER_SERVICE, name), body, { correlationId: uniqueName('req') }) as Promise<T>;
  const walletBalance = async () => (await command<{ available: string }>(LEDGER_COMMANDS.getWallet, { wallet_id: wallet, environment: 'test' })).available;
  const merchantBalance = async () =>
    (await command<{ available: Array<{ amount: string }> }>(LEDGER_COMMANDS.getBalance, { merchant_id: merchant, environment: 'test' })).available[0]!.amount;
  const metrics = () => fetch(`${stack.services.ledger!.opsUrl}/metrics`).then((res) => res.text());
  const paymentId = () => String(9_300_000_000_000_000 + Math.floor(Math.random() * 1e12));

  async function sql(text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    const pg = new Client({ connectionString: stack.db.url });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows;
    } finally {
      await pg.end();
    }
  }

  /** Without headers unless asked (an event written before the outbox set them), or with the outbox's own. */
  async function publish(stream: string, key: string, event: unknown, headers?: Record<string, string>): Promise<string> {
    const topic = topicName(stack.namespace, stream);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key, value: JSON.stringify(event), ...(headers ? { headers } : {}) }] });
    await producer.disconnect();
    return topic;
  }

  function envelope(type: string, aggregateType: string, aggregateId: string, data: unknown) {
    return {
      id: `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      type,
      schema_version: 1,
      aggregate_type: aggregateType,
      aggregate_id: aggregateId,
      sequence: 3,
      merchant_id: merchant,
      environment: 'test',
      occurred_at: new Date().toISOString(),
      correlation_id: 'req_wallet_service',
      causation_id: null,
      data,
    };
  }
  /** A 20.00 togo payment at 0.5 % as sessions reports it; with a wallet when paid from one. */
  const succeeded = (id: string, source: string, walletId: string | null) =>
    envelope('payment_intent.succeeded', 'payment_intent', source, {
      payment: { id, method: 'togo', amount: '20.00', fee: '0.10', fee_rate_bps: 50, net: '19.90', currency: 'USD', ...(walletId ? { wallet_id: walletId } : {}) },
    });

  beforeAll(async () => {
    stack = await startStack(['ledger'], { COMMAND_SECRET: secret });
    client = new CommandClient({ upstreams: { [LEDGER_SERVICE]: [stack.services.ledger!.commandUrl!] }, secrets: [secret], connectTimeoutMs: 2000 });
    ledger = new ServiceClient(client, 10_000);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('pays a session from a wallet, takes its event as already booked, and books its refund back to the wallet', async () => {
    expect(await command(LEDGER_COMMANDS.creditWallet, { wallet_id: wallet, environment: 'test', amount: '30.00', key: 'welcome', description: 'Welcome' })).toMatchObject({
      created: true,
      balance: '30.00',
    });
    const id = paymentId();
    const source = `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const pay = { wallet_id: wallet, environment: 'test', merchant_id: merchant, payment_id: id, source, method: 'togo', amount: '20.00', fee: '0.10', net: '19.90', fee_rate_bps: 50 };
    const paid = await command<{ outcome: string; posting_id: string; balance: string }>(LEDGER_COMMANDS.payFromWallet, pay);
    expect(paid).toEqual({ outcome: 'paid', posting_id: expect.stringMatching(/^txn_/), balance: '10.00' });
    expect(await command(LEDGER_COMMANDS.payFromWallet, pay)).toEqual(paid);
    expect(await command(LEDGER_COMMANDS.payFromWallet, { ...pay, payment_id: paymentId() })).toEqual({ outcome: 'insufficient_funds', balance: '10.00' });
    expect(await merchantBalance()).toBe('19.90');

    // Sessions' event for it: the session's success is recorded, nothing is booked again.
    await publish(STREAMS.sessionPayments, source, succeeded(id, source, wallet));
    await waitFor(async () => (await sql(`SELECT 1 FROM ledger.wallet_payment_sessions WHERE payment_id = $1`, [id])).length === 1, 30_000, 'the session success to be recorded');
    expect(await merchantBalance()).toBe('19.90');

    // The refunds service completes a wallet payment's refund at once; the ledger credits the wallet.
    const refundId = `re_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const now = new Date().toISOString();
    await publish(
      STREAMS.refunds,
      refundId,
      envelope('refund.completed', 'refund', refundId, {
        object: { id: refundId, object: 'refund', payment_id: id, amount: '5.00', currency: 'USD', reason: null, status: 'completed', failure_reason: null, environment: 'test', created_at: now, completed_at: now },
        payment: { id, source, method: 'togo', amount: '20.00', currency: 'USD' },
      }),
    );
    await waitFor(async () => (await walletBalance()) === '15.00', 30_000, 'the refund to reach the wallet');
    expect(await merchantBalance()).toBe('14.90');
    const statement = await command<{ data: Array<{ type: string; amount: string }> }>(LEDGER_COMMANDS.listWalletTransactions, { wallet_id: wallet, environment: 'test', limit: 10 });
    expect(statement.data.map((t) => [t.type, t.amount])).toEqual([
      ['refund', '5.00'],
      ['payment', '-20.00'],
      ['credit', '30.00'],
    ]);
    const text = await metrics();
    expect(text).toMatch(/^ledger_wallet_payments_total\{outcome="paid"\} 1$/m);
    expect(text).toMatch(/^ledger_wallet_payments_total\{outcome="repeat"\} 1$/m);
    expect(text).toMatch(/^ledger_wallet_payments_total\{outcome="insufficient_funds"\} 1$/m);
  });

  it('refuses a payment event naming a wallet the ledger never debited, and books a sandbox togo payment (no wallet) from clearing', async () => {
    const before = await merchantBalance();
    const id = paymentId();
    const source = `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const topic = await publish(STREAMS.sessionPayments, source, succeeded(id, source, wallet));
    const parked = await collectMessages(deadLetterTopic(topic), 1, 20_000, undefined, (m) => m.key === source);
    expect(parked[0]?.headers).toMatchObject({ 'dlq-reason': expect.stringMatching(new RegExp(`^wallet_not_debited: payment ${id}`)), 'dlq-attempts': '1' });
    expect(await metrics()).toMatch(/^ledger_refused_events_total\{reason="wallet_not_debited"\} 1$/m);
    expect(await merchantBalance()).toBe(before);

    const sandbox = paymentId();
    const sandboxSource = `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    await publish(STREAMS.sessionPayments, sandboxSource, succeeded(sandbox, sandboxSource, null));
    // In cents: the balance before plus the sandbox payment's net (19.90).
    const expected = formatMoney(Number(before.replace('.', '')) + 1990);
    await waitFor(async () => (await merchantBalance()) === expected, 30_000, 'the sandbox payment to be booked');
    const entries = await sql(`SELECT e.account FROM ledger.entries e JOIN ledger.postings p ON p.id = e.posting_id WHERE p.payment_id = $1 AND e.amount_cents > 0`, [sandbox]);
    expect(entries).toEqual([{ account: 'platform:test:clearing' }]);
  });

  it('passes over, unread and without a transaction, a payment event its outbox headers mark as paid from a wallet', async () => {
    const id = paymentId();
    const source = `pi_test_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const pay = { wallet_id: wallet, environment: 'test', merchant_id: merchant, payment_id: id, source, method: 'togo', amount: '20.00', fee: '0.10', net: '19.90', fee_rate_bps: 50 };
    await command(LEDGER_COMMANDS.creditWallet, { wallet_id: wallet, environment: 'test', amount: '20.00', key: uniqueName('k') });
    expect(await command(LEDGER_COMMANDS.payFromWallet, pay)).toMatchObject({ outcome: 'paid' });
    const before = await merchantBalance();
    const refusedUndebited = async () => Number(/^ledger_refused_events_total\{reason="wallet_not_debited"\} (\d+)$/m.exec(await metrics())?.[1] ?? 0);
    const refusedBefore = await refusedUndebited();
    const marked = succeeded(id, source, wallet);
    const headers = envelopeHeaders(marked as EventEnvelope);
    expect(headers).toMatchObject({ [WALLET_PAYMENT_HEADER]: 'true', 'event-type': 'payment_intent.succeeded' });
    expect(JSON.stringify(headers)).not.toContain(wallet);
    await publish(STREAMS.sessionPayments, source, marked, headers);
    // One without a debit, marked too: passed over as well (sessions' data shows it to ledger check, see its test).
    const undebited = succeeded(paymentId(), source, wallet);
    await publish(STREAMS.sessionPayments, source, undebited, envelopeHeaders(undebited as EventEnvelope));
    // Behind them on the same partition, a sandbox payment the consumer books: once it is, the two were passed.
    const sandbox = succeeded(paymentId(), source, null);
    expect(envelopeHeaders(sandbox as EventEnvelope)).not.toHaveProperty(WALLET_PAYMENT_HEADER);
    await publish(STREAMS.sessionPayments, source, sandbox, envelopeHeaders(sandbox as EventEnvelope));
    await waitFor(async () => (await sql(`SELECT 1 FROM ledger.inbox WHERE event_id = $1`, [sandbox.id])).length === 1, 30_000, 'the sandbox payment to be booked');
    expect(await sql(`SELECT event_id FROM ledger.inbox WHERE event_id = ANY($1::text[])`, [[marked.id, undebited.id]])).toEqual([]);
    expect(await sql(`SELECT 1 FROM ledger.wallet_payment_sessions WHERE payment_id = $1`, [id])).toEqual([]);
    expect(await sql(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [id])).toEqual([{ n: 1 }]);
    // The sandbox payment's net (19.90) and nothing from the two passed over.
    expect(await merchantBalance()).toBe(formatMoney(Number(before.replace('.', '')) + 1990));
    // Neither refused nor dead-lettered.
    expect(await refusedUndebited()).toBe(refusedBefore);
  });

  it("ledger check is clean over wallets, and reports a wallet debit whose session never succeeded (sessions' data, not the journal's)", async () => {
    const run = async (...args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'tools/admin.mjs'), 'ledger', 'check', '--json', ...args], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: stack.db.url, LOG_LEVEL: 'warn' },
        });
        return { code: 0, json: JSON.parse(stdout) };
      } catch (error) {
        const failed = error as { code: number; stdout: string };
        return { code: failed.code, json: JSON.parse(failed.stdout) };
      }
    };
    expect(await run('--journal-only')).toMatchObject({ code: 0, json: { ok: true, findings: [] } });
    // The owners' tables as far as the check reads them (this stack runs the ledger alone), and a shop of its own.
    await sql(`CREATE SCHEMA IF NOT EXISTS sessions`);
    await sql(`CREATE TABLE sessions.payments (id bigint PRIMARY KEY, merchant_id text, environment text, amount_cents bigint, net_cents bigint, paid_at timestamptz)`);
    await sql(`CREATE TABLE sessions.provider_attempts (reference text PRIMARY KEY, session_id text, status text, wallet_id text, payment_id text)`);
    await sql(`CREATE SCHEMA IF NOT EXISTS refunds`);
    await sql(
      `CREATE TABLE refunds.refunds (id text PRIMARY KEY, payment_id bigint, merchant_id text, environment text, amount_cents bigint, status text, created_at timestamptz, completed_at timestamptz)`,
    );
    const shop = `acct_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    // Paid from the wallet, and no session's success ever arrives: within the grace it is on its way.
    const id = paymentId();
    await command(LEDGER_COMMANDS.payFromWallet, {
      wallet_id: wallet, environment: 'test', merchant_id: shop, payment_id: id, source: `pi_test_${id}`, method: 'togo', amount: '1.00', fee: '0.01', net: '0.99', fee_rate_bps: 50,
    });
    expect(await run('--merchant', shop)).toMatchObject({ code: 0, json: { ok: true } });
    // Past the grace: the wallet's postings aged by hand, all alike (their order is the wallet's running balance).
    await sql(`ALTER TABLE ledger.postings DISABLE TRIGGER USER`);
    try {
      await sql(`UPDATE ledger.postings SET created_at = created_at - interval '10 minutes' WHERE wallet_id = $1`, [wallet]);
    } finally {
      await sql(`ALTER TABLE ledger.postings ENABLE TRIGGER USER`);
    }
    const late = await run('--merchant', shop);
    expect(late.code).toBe(1);
    expect(late.json.findings).toEqual([
      { invariant: 'every payment posting matches a payment sessions made', count: 1, examples: [expect.objectContaining({ payment_id: id })] },
      { invariant: 'every wallet debit has its session succeeded', count: 1, examples: [expect.objectContaining({ payment_id: id, wallet_id: wallet, merchant_id: shop })] },
    ]);
    // The journal alone cannot tell: whether a session succeeded is sessions' data.
    expect(await run('--journal-only')).toMatchObject({ code: 0, json: { ok: true } });
  });
});
