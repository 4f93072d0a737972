// The fault suite (`npm run chaos`): N payments made the way a merchant's server makes them (create, simulate or,
// one in four, the customer pays at Lahza's stand-in through the checkout; refund part of it), while the gateway,
// sessions, the ledger, refunds and the webhook-dispatcher are each killed with SIGKILL and restarted, the Kafka
// broker is stopped and started, and PostgreSQL is restarted (an immediate shutdown, like a crash). One in eight is
// a live payment at Lahza, whose refund goes through Lahza (pending until Lahza has processed it, learnt from its
// notification or the background check). Asserts that nothing was lost or doubled (payments, refunds, their
// webhooks, Lahza asked once per refund, and the ledger: each environment's balance equals its payments' nets less
// its refunds to the cent, and `ledger check` is clean) and prints, per fault, how long until creates succeed and
// webhooks flow again. The ledger twice over 1,000 payments: `--payments 1000 --faults ledger,ledger`.
// Every kill catches requests in flight: a burst of payments starts just before it (creates, simulates, refunds and
// checkout pays at the process killed or waiting on it), and the merchant retries each with its key.
// `--replicas 2` runs two instances of sessions, the ledger, refunds and the webhook-dispatcher (the gateway sends
// commands to both; consumer groups split the partitions) and kills one of each in turn: the goal is then that no
// call fails at all, and that postings and webhooks of payments made meanwhile wait at most 5 s.
// One payment in four is paid from a customer's wallet (`togo`) on the checkout, signed in once per environment; at
// the end each wallet must hold its operator's credit less its payments plus their refunds, to the cent.
// Another one in four is paid in crypto on a local anvil chain (a block a second), counted by the chain watcher at
// its confirmations; the watcher is killed (kill -9) and the chain node restarted among the faults, and each
// crypto intent must have received its amount exactly once (no overpayment, one payment).
// Usage: node -r ./tools/swc-register.js chaos/run.ts [--payments 400] [--rate 6] [--replicas 2] [--faults gateway,sessions,...]
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { Client } from 'pg';
import {
  COMMAND_URL_SETTINGS,
  deployTestToken,
  freePort,
  LahzaStandIn,
  PrivateKafka,
  PrivatePostgres,
  REPO_ROOT,
  signInWalletCustomer,
  startAnvil,
  startService,
  type RunningAnvil,
  type RunningService,
  type WalletCustomer,
} from '@payments/testing';
import { MerchantClient, type Environment, type PaymentOutcome } from './merchant-client';
import { WebhookInbox } from './webhook-inbox';

// `chain-watcher` is a kill -9 of the watcher, `chain` a restart of the chain's node (anvil, its state kept).
const FAULTS = ['gateway', 'sessions', 'ledger', 'refunds', 'webhook-dispatcher', 'chain-watcher', 'kafka', 'postgres', 'chain'] as const;
/** With two instances of each owner, one of each is killed in turn (the gateway is one process: its kill fails calls). */
const REPLICA_FAULTS = ['sessions', 'ledger', 'refunds', 'webhook-dispatcher', 'chain-watcher'] as const;
type Fault = (typeof FAULTS)[number];
// The ledger before sessions (which posts wallet payments to it), sessions before refunds (which asks it for payments).
const OWNERS = ['ledger', 'sessions', 'webhook-dispatcher', 'refunds'] as const;
type Owner = (typeof OWNERS)[number];

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const payments = Number(arg('payments') ?? 400);
const replicas = Number(arg('replicas') ?? 1);
if (replicas !== 1 && replicas !== 2) throw new Error('--replicas is 1 or 2');
const faults = (arg('faults') ?? (replicas === 2 ? REPLICA_FAULTS : FAULTS).join(',')).split(',').filter(Boolean) as Fault[];
/** Payments started together just before each kill, so it catches requests in flight. */
const BURST = 8;
/** How long after the burst starts the kill comes: its first calls are under way, none answered yet. */
const BURST_LEAD_MS = 15;
// Spread over the faults (about 13 s each, after 5 s of calm), so every fault meets payments in flight.
const rate = Number(arg('rate') ?? Math.max(0.5, payments / (10 + faults.length * 13)));
const GOAL_CREATE_S = 2;
/** What an operator credits each chaos customer's wallet with: more than its payments take. */
const WALLET_FLOAT = '50000.00';
const GOAL_WEBHOOK_S = 5;
/** The local chain's confirmations: a transfer counts about three seconds after it is mined. */
const CHAIN_CONFIRMATIONS = 3;
/** With a second instance, the longest a payment made while one dies waits for its posting and its webhook. */
const GOAL_REPLICA_WAIT_S = 5;

interface FaultFigures {
  fault: Fault;
  /** Kill (or stop) until the restarted process reports ready (the broker's port answers, pg_ctl returns). */
  downS: number;
  /** The merchant's HTTP calls under way when the process was killed. */
  inFlightAtKill: number;
  /** Calls that failed (and were retried) from the kill until the next fault. */
  failedCalls: number;
  /** From ready to the last failed call of the fault (≤ 0: every failure was over by ready). */
  lastFailureAfterReadyS: number | null;
  readyToCreateS: number | null;
  readyToWebhookS: number | null;
  killAt: number;
  untilAt: number;
}

/** MoneyString → cents, exactly ("12.30" → 1230). */
const centsOf = (money: string) => {
  const [whole, fraction = ''] = money.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
};
const moneyOf = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined || Date.now() > until) return value;
    await sleep(50);
  }
}

/** `npm run admin -- ...` as operators run it; resolves its --json output (also when it exits 1 with a report). */
/** The admin CLI against the suite's database (`env` adds settings, e.g. the ledger's command address for a wallet credit). */
function admin(databaseUrl: string, ...args: Array<string | Record<string, string>>): Promise<Record<string, any>> {
  const cli = join(REPO_ROOT, 'tools', 'admin.mjs');
  const env = Object.assign({}, ...args.filter((a): a is Record<string, string> => typeof a !== 'string')) as Record<string, string>;
  const words = args.filter((a): a is string => typeof a === 'string');
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [cli, ...words, '--json'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env } }, (error, stdout, stderr) =>
      stdout.trim() ? resolve(JSON.parse(stdout)) : reject(new Error(`admin ${words.join(' ')}: ${error?.message ?? ''} ${stderr}`)),
    ),
  );
}

async function main(): Promise<number> {
  console.log(
    `chaos: ${payments} payments at ${rate.toFixed(1)}/s and ${BURST} more at each kill; ${replicas} instance${replicas > 1 ? 's' : ''} of each owner; faults ${faults.join(', ')}; ${new Date().toISOString()}`,
  );
  const kafka = new PrivateKafka(await freePort(), await freePort());
  const postgres = new PrivatePostgres(await freePort());
  const inbox = new WebhookInbox();
  const lahza = new LahzaStandIn({ secretKey: `sk_test_chaos_${randomBytes(8).toString('hex')}` });
  // Each owner's instances (the first is the one a fault kills), and the one gateway.
  const owners: Partial<Record<Owner, RunningService[]>> = {};
  let gateway: RunningService | undefined;
  // The chain watcher's instances (the first is the one its fault kills) and the chain's node.
  const watchers: RunningService[] = [];
  const chainState = mkdtempSync(join(tmpdir(), 'chaos-chain-'));
  let anvil: RunningAnvil | undefined;
  const commandUrls = (app: Owner) => owners[app]!.map((s) => s.commandUrl!).join(',');
  try {
    await kafka.start();
    await postgres.start();
    const receiverUrl = await inbox.listen();
    const lahzaUrl = await lahza.listen();
    // The chain: its state written on every stop (and every 2 s), so a restart of the node keeps what was mined.
    anvil = await startAnvil({ blockTimeSeconds: 1, statePath: join(chainState, 'state.json'), stateIntervalSeconds: 2 });
    const token = await deployTestToken(anvil.rpcUrl, { name: 'Chaos USD', symbol: 'CUSD', decimals: 6 });
    const xpub = (account: number) => HDKey.fromMasterSeed(randomBytes(32)).derive(`m/44'/60'/${account}'`).publicExtendedKey;
    const common = {
      DATABASE_URL: postgres.url,
      KAFKA_BROKERS: kafka.brokers,
      KAFKA_NAMESPACE: `chaos_${randomBytes(4).toString('hex')}`,
      WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      // A delivery cut short by a killed dispatcher comes back when its lease ends.
      WEBHOOK_TIMEOUT_MS: '2000',
      RATE_LIMIT_TEST_PER_SEC: '10000',
      RATE_LIMIT_LIVE_PER_SEC: '10000',
      // Live sessions pay at Lahza (here the stand-in); test sessions offer its test page beside the sandboxes.
      LAHZA_BASE_URL: lahzaUrl,
      LAHZA_TEST_SECRET_KEY: lahza.secretKey,
      LAHZA_LIVE_SECRET_KEY: lahza.secretKey,
      CRYPTO_CHAINS: JSON.stringify([
        { name: 'chaos', chain_id: anvil.chainId, rpc_url: anvil.rpcUrl, confirmations: CHAIN_CONFIRMATIONS, tokens: [{ symbol: 'CUSD', address: token, decimals: 6 }] },
      ]),
      CRYPTO_XPUB_TEST: xpub(0),
      CRYPTO_XPUB_LIVE: xpub(1),
    };
    for (const app of OWNERS) {
      owners[app] = [];
      for (let i = 0; i < replicas; i++) {
        // Refunds asks sessions for payments whose event has not reached it (e.g. while its consumer rejoins); sessions
        // posts wallet payments and top-ups to the ledger.
        const extra: Record<string, string> =
          app === 'refunds' ? { SESSIONS_URL: commandUrls('sessions') } : app === 'sessions' && owners.ledger?.length ? { LEDGER_URL: commandUrls('ledger') } : {};
        owners[app].push(await startService(app, { ...common, ...extra, PORT: String(await freePort()) }));
      }
    }
    for (let i = 0; i < replicas; i++) watchers.push(await startService('chain-watcher', { ...common, PORT: String(await freePort()) }));
    const gatewayCommandUrls = Object.fromEntries(OWNERS.map((app) => [COMMAND_URL_SETTINGS[app]!, commandUrls(app)]));
    const gatewayPort = await freePort();
    // Wallet forms must name the gateway's own origin.
    gateway = await startService('gateway', { ...common, ...gatewayCommandUrls, PORT: String(gatewayPort), PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}` });

    const merchant = await admin(postgres.url, 'merchant', 'create', '--name', 'Chaos Shop', '--email', 'chaos@example.com', '--verified');
    // A customer per environment pays one payment in four from a wallet an operator funded, signed in once.
    const wallets = {} as Record<Environment, WalletCustomer>;
    for (const environment of ['test', 'live'] as const) {
      const email = `chaos-${environment}@example.com`;
      await admin(postgres.url, 'wallet', 'credit', '--email', email, '--amount', WALLET_FLOAT, '--key', 'chaos-float', '--env', environment, { LEDGER_URL: commandUrls('ledger') });
      wallets[environment] = await signInWalletCustomer({ origin: `http://127.0.0.1:${gatewayPort}`, databaseUrl: postgres.url, environment, email });
    }
    const chain = { rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, token, decimals: 6 };
    const client = new MerchantClient(() => gateway!.url, { test: merchant.test_key!, live: merchant.live_key! }, lahza, wallets, chain);
    for (const environment of ['test', 'live'] as const) inbox.secrets[environment] = (await client.createEndpoint(`${receiverUrl}/${environment}`, environment)).secret;

    // Lahza processes the refunds asked of it within a second, and tells the gateway of every other one (a
    // notification lost to a fault is left to the refunds service's background check).
    let notificationsLost = 0;
    const lahzaSettles = setInterval(() => {
      const pending = lahza.refunds.filter((r) => r.status === 'pending');
      lahza.processRefunds();
      for (const refund of pending.filter((r) => r.id % 2 === 0)) {
        void lahza.notifyRefund(`${gateway!.url}/providers/lahza/notifications`, refund.id).then(
          (status) => void (status === 200 || notificationsLost++),
          () => void notificationsLost++,
        );
      }
    }, 1000);

    // Payments at an even pace, each on its own, for the whole run.
    const outcomes: PaymentOutcome[] = [];
    const failures: string[] = [];
    const started = Date.now();
    const inFlight: Promise<void>[] = [];
    let startedPayments = 0;
    let faultsDone = false;
    const startPayment = () => {
      const index = startedPayments++;
      inFlight.push(client.pay(index).then((o) => void outcomes.push(o), (error: Error) => void failures.push(error.message)));
    };
    const paying = (async () => {
      for (let i = 0; i < payments; i++) {
        await sleep(Math.max(0, started + (i * 1000) / rate - Date.now()));
        startPayment();
      }
      // Bursts may still be adding payments until the last fault is over.
      while (!faultsDone) await sleep(100);
      await Promise.all(inFlight);
    })();

    const figures: FaultFigures[] = [];
    await sleep(5000);
    for (const fault of faults) {
      // Requests in flight at the kill: a burst of payments (their creates first; others are at their simulates,
      // refunds or checkout pays), the kill a moment after it starts.
      for (let i = 0; i < BURST; i++) startPayment();
      await sleep(BURST_LEAD_MS);
      const inFlightAtKill = client.inFlight;
      const at = Date.now();
      if (fault === 'kafka') {
        await kafka.stop();
        await sleep(3000);
        await kafka.start();
      } else if (fault === 'postgres') {
        await postgres.restart();
      } else if (fault === 'chain') {
        await anvil.restart();
      } else if (fault === 'chain-watcher') {
        const watcher = watchers[0]!;
        await watcher.kill();
        watchers[0] = await startService('chain-watcher', watcher.env);
      } else if (fault === 'gateway') {
        await gateway!.kill();
        gateway = await startService('gateway', gateway!.env);
      } else {
        const service = owners[fault]![0]!;
        await service.kill();
        // The restarted instance keeps its ports, so the gateway's list of instances stays right.
        owners[fault]![0] = await startService(fault, service.env);
      }
      const ready = Date.now();
      const create = await waitFor(() => client.createSuccesses.find((t) => t >= ready), 60_000);
      const webhook = await waitFor(() => inbox.arrivals.find((a) => a.at >= ready)?.at, 60_000);
      await sleep(3000);
      const untilAt = Date.now();
      const failed = client.failedCalls.filter((f) => f.at >= at && f.at < untilAt);
      figures.push({
        fault,
        downS: seconds(ready - at),
        inFlightAtKill,
        failedCalls: failed.length,
        lastFailureAfterReadyS: failed.length === 0 ? null : seconds(Math.max(...failed.map((f) => f.at)) - ready),
        readyToCreateS: create === undefined ? null : seconds(create - ready),
        readyToWebhookS: webhook === undefined ? null : seconds(webhook - ready),
        killAt: at,
        untilAt,
      });
      const { killAt: _k, untilAt: _u, ...shown } = figures.at(-1)!;
      console.log(`chaos: ${fault} done (${JSON.stringify(shown)})`);
    }
    faultsDone = true;
    await paying;
    const total = startedPayments;
    clearInterval(lahzaSettles);

    // Every payment's webhook, then what the API and the database say.
    const succeeded = new Set(outcomes.map((o) => o.intentId));
    const refunded = new Set(outcomes.flatMap((o) => (o.refundId === null ? [] : [o.refundId])));
    await waitFor(
      () => ([...succeeded].every((id) => inbox.succeededEvents().has(id)) && [...refunded].every((id) => inbox.refundEvents().has(id)) ? true : undefined),
      180_000,
    );
    const events = inbox.succeededEvents();
    const refundEvents = inbox.refundEvents();
    const missingWebhooks = [...succeeded].filter((id) => !events.has(id));
    const missingRefundWebhooks = [...refunded].filter((id) => !refundEvents.has(id));
    const doubledEvents = [...events, ...refundEvents].filter(([, ids]) => ids.size > 1).map(([id]) => id);
    const paymentIds = new Map<string, string>();
    const notSucceeded: string[] = [];
    const reused: string[] = [];
    const netCents: Record<Environment, number> = { test: 0, live: 0 };
    const refundCentsOf: Record<Environment, number> = { test: 0, live: 0 };
    // Lahza asked once per live refund, for its amount; never for a test one.
    const providerRefundsOff: string[] = [];
    const cryptoOff: string[] = [];
    for (const outcome of outcomes) {
      refundCentsOf[outcome.environment] += centsOf(outcome.refundAmount);
      if (outcome.lahzaReference) {
        const atLahza = lahza.refunds.filter((r) => r.transaction === outcome.lahzaReference).map((r) => `${r.amount} ${r.status}`);
        const expected = outcome.environment === 'live' ? [`${centsOf(outcome.refundAmount)} processed`] : [];
        if (JSON.stringify(atLahza) !== JSON.stringify(expected)) providerRefundsOff.push(`${outcome.refundId}: Lahza has [${atLahza.join(', ')}]`);
      }
      const intent = await client.get(outcome.intentId, outcome.environment);
      netCents[outcome.environment] += centsOf(String(intent.net_amount));
      // A crypto intent received its amount once: a transfer counted twice would show as an overpayment.
      const crypto = intent.crypto as { received_amount: string; overpayment_amount: string } | undefined;
      if (outcome.depositAddress && (crypto?.received_amount !== outcome.amount || crypto.overpayment_amount !== '0.00')) {
        cryptoOff.push(`${outcome.intentId}: received ${crypto?.received_amount} (overpayment ${crypto?.overpayment_amount}) of ${outcome.amount}`);
      }
      if (intent.status !== 'succeeded') notSucceeded.push(`${outcome.intentId}: ${String(intent.status)}`);
      const paymentId = String(intent.payment_id);
      if (paymentIds.has(paymentId)) reused.push(paymentId);
      paymentIds.set(paymentId, outcome.intentId);
    }
    const db = new Client({ connectionString: postgres.url });
    await db.connect();
    const stored = (
      await db.query<{ intents: number; refs: number; payments: number; refunds: number; refunded_payments: number; refund_cents: string }>(
        `SELECT (SELECT count(*)::int FROM sessions.payment_intents WHERE merchant_id = $1) AS intents,
                (SELECT count(DISTINCT external_ref)::int FROM sessions.payment_intents WHERE merchant_id = $1) AS refs,
                (SELECT count(*)::int FROM sessions.payments WHERE merchant_id = $1) AS payments,
                (SELECT count(*)::int FROM refunds.refunds WHERE merchant_id = $1) AS refunds,
                (SELECT count(DISTINCT payment_id)::int FROM refunds.refunds WHERE merchant_id = $1) AS refunded_payments,
                (SELECT COALESCE(sum(amount_cents), 0)::text FROM refunds.refunds WHERE merchant_id = $1) AS refund_cents`,
        [merchant.merchant_id],
      )
    ).rows[0]!;
    // How long payments made during each fault waited for their posting and their webhook.
    const postedAt = new Map(
      (await db.query<{ payment_id: string; at: Date }>(`SELECT payment_id, created_at AS at FROM ledger.postings WHERE kind = 'payment' AND merchant_id = $1`, [merchant.merchant_id])).rows.map(
        (r) => [r.payment_id, r.at.getTime()],
      ),
    );
    const webhookAt = new Map<string, number>();
    for (const arrival of inbox.arrivals) {
      if (arrival.webhook.type === 'payment_intent.succeeded' && !webhookAt.has(arrival.objectId)) webhookAt.set(arrival.objectId, arrival.at);
    }
    const waits = figures.map((f) => {
      const during = outcomes.filter((o) => o.succeededAt >= f.killAt && o.succeededAt < f.untilAt);
      const longest = (at: (o: PaymentOutcome) => number | undefined) => (during.length === 0 ? null : seconds(Math.max(...during.map((o) => (at(o) ?? Infinity) - o.succeededAt))));
      return { payments: during.length, posting: longest((o) => postedAt.get(o.paymentId)), webhook: longest((o) => webhookAt.get(o.intentId)) };
    });
    const extraRefunds = stored.refunds - stored.refunded_payments;
    const refundCents = refundCentsOf.test + refundCentsOf.live;
    const refundSumOff = Number(stored.refund_cents) - refundCents;
    await db.end();

    // The ledger: every payment and refund booked once, in its own environment. Its consumer may still be catching
    // up after the last fault.
    const balances = { test: '', live: '' };
    const ledgerOff = { test: 0, live: 0 };
    for (const environment of ['test', 'live'] as const) {
      const expected = moneyOf(netCents[environment] - refundCentsOf[environment]);
      const until = Date.now() + 60_000;
      while ((balances[environment] = await client.balance(environment)) !== expected && Date.now() < until) await sleep(250);
      ledgerOff[environment] = centsOf(balances[environment]) - (netCents[environment] - refundCentsOf[environment]);
    }
    // Each customer's wallet: the float less its payments plus their refunds, to the cent (the refunds' credits
    // arrive through the ledger's consumer, which may still be catching up).
    const walletOff = { test: 0, live: 0 };
    const walletBalance = { test: '', live: '' };
    const walletDb = new Client({ connectionString: postgres.url });
    await walletDb.connect();
    for (const environment of ['test', 'live'] as const) {
      const paidHere = outcomes.filter((o) => o.walletId !== null && o.environment === environment);
      const expected = centsOf(WALLET_FLOAT) - paidHere.reduce((sum, o) => sum + centsOf(o.amount) - centsOf(o.refundAmount), 0);
      const account = `${wallets[environment].walletId}:${environment}:wallet`;
      const until = Date.now() + 60_000;
      let cents = NaN;
      do {
        const row = (await walletDb.query<{ cents: string }>(`SELECT (-coalesce(sum(sum_cents), 0))::text AS cents FROM ledger.balances WHERE account = $1`, [account])).rows[0]!;
        cents = Number(row.cents);
        if (cents === expected) break;
        await sleep(250);
      } while (Date.now() < until);
      walletOff[environment] = cents - expected;
      walletBalance[environment] = `${moneyOf(cents)} (expected ${moneyOf(expected)}, ${paidHere.length} payments)`;
    }
    await walletDb.end();
    const check = await admin(postgres.url, 'ledger', 'check');
    const offBy = (cents: number) => (cents === 0 ? 'no' : moneyOf(Math.abs(cents)));

    // A refund lost would leave the balance high and the sum short; a refund doubled, the reverse. A refund Lahza
    // was never asked for, or asked twice, shows in providerRefundsOff.
    // A wallet high means a payment's debit (or more) is missing; low, a debit doubled or a refund lost.
    const ledgerHigh = Number(ledgerOff.test > 0) + Number(ledgerOff.live > 0) + Number(walletOff.test > 0) + Number(walletOff.live > 0);
    const ledgerLow = Number(ledgerOff.test < 0) + Number(ledgerOff.live < 0) + Number(walletOff.test < 0) + Number(walletOff.live < 0);
    const lost = failures.length + notSucceeded.length + missingWebhooks.length + missingRefundWebhooks.length + ledgerHigh + (refundSumOff < 0 ? 1 : 0);
    const doubled =
      cryptoOff.length +
      doubledEvents.length +
      reused.length + (stored.intents - stored.refs) + Math.max(0, stored.payments - stored.refs) + extraRefunds + ledgerLow + (refundSumOff > 0 ? 1 : 0);
    const live = outcomes.filter((o) => o.environment === 'live');
    console.log('');
    console.log(`chaos: ${outcomes.length}/${total} payments succeeded in ${seconds(Date.now() - started)} s; ${outcomes.reduce((n, o) => n + o.retries, 0)} merchant retries`);
    console.log(
      `  paid at Lahza (stand-in) through the checkout: ${outcomes.filter((o) => o.lahzaReference).length} (${live.filter((o) => o.lahzaReference).length} live, refunded through Lahza); from a wallet (togo) on the checkout: ${outcomes.filter((o) => o.walletId).length} (${live.filter((o) => o.walletId).length} live, refunded to the wallet); in crypto on the chain: ${outcomes.filter((o) => o.depositAddress).length} (${live.filter((o) => o.depositAddress).length} live, refund refused), ${cryptoOff.length} off; by simulate: ${outcomes.filter((o) => !o.lahzaReference && !o.walletId && !o.depositAddress).length}`,
    );
    console.log(`  intents stored ${stored.intents} (distinct references ${stored.refs}), payments stored ${stored.payments}`);
    console.log(`  refunds stored ${stored.refunds} over ${stored.refunded_payments} payments, ${moneyOf(Number(stored.refund_cents))} USD (asked ${moneyOf(refundCents)} USD)`);
    console.log(
      `  Lahza: ${lahza.refunds.length} refunds asked of it for ${live.filter((o) => o.lahzaReference).length} live Lahza refunds (${live.filter((o) => o.refundWasPending).length} answered pending, then completed), ${providerRefundsOff.length} off; ${notificationsLost} of its notifications lost to faults`,
    );
    console.log(`  webhooks: ${inbox.arrivals.length} verified arrivals, ${events.size} intents with payment_intent.succeeded, ${refundEvents.size} refunds with refund.completed, ${inbox.rejected} rejected`);
    for (const environment of ['test', 'live'] as const) {
      console.log(`  ledger, ${environment}: balance ${balances[environment]} USD, nets less refunds ${moneyOf(netCents[environment] - refundCentsOf[environment])} USD`);
    }
    for (const environment of ['test', 'live'] as const) console.log(`  wallet, ${environment}: ${walletBalance[environment]}`);
    console.log(`  ledger check ${check.ok ? 'clean' : `BROKEN: ${JSON.stringify(check.findings)}`} (${String(check.postings)} postings)`);
    console.log(
      `  lost ${lost} (failed ${failures.length}, not succeeded ${notSucceeded.length}, no webhook ${missingWebhooks.length + missingRefundWebhooks.length}, refunds short ${refundSumOff < 0 ? 'yes' : 'no'}, balance off: test ${offBy(ledgerOff.test)}, live ${offBy(ledgerOff.live)}; wallet off: test ${offBy(walletOff.test)}, live ${offBy(walletOff.live)})`,
    );
    console.log(
      `  doubled ${doubled} (crypto received off ${cryptoOff.length}, two event ids for one change ${doubledEvents.length}, payment id reused ${reused.length}, extra intents ${stored.intents - stored.refs}, extra refunds ${extraRefunds})`,
    );
    console.log('');
    const mark = (v: number | null, goal: number, none = 'none within 60 s') => (v === null ? none : `${v.toFixed(1)} s ${v <= goal ? 'met' : 'NOT met'}`);
    if (replicas === 1) {
      console.log(
        `  fault                | down → ready | in flight at kill | failed calls | last failure after ready (goal ≤ ${GOAL_CREATE_S} s) | ready → create ok (goal ≤ ${GOAL_CREATE_S} s) | ready → webhook (goal ≤ ${GOAL_WEBHOOK_S} s)`,
      );
      for (const f of figures) {
        console.log(
          `  ${f.fault.padEnd(20)} | ${f.downS.toFixed(1).padStart(10)} s | ${String(f.inFlightAtKill).padStart(17)} | ${String(f.failedCalls).padStart(12)} | ${mark(f.lastFailureAfterReadyS, GOAL_CREATE_S, 'no failure').padEnd(38)} | ${mark(f.readyToCreateS, GOAL_CREATE_S).padEnd(27)} | ${mark(f.readyToWebhookS, GOAL_WEBHOOK_S)}`,
        );
      }
    } else {
      console.log(
        `  one of two killed    | down → ready | in flight at kill | failed calls (goal 0) | payments meanwhile | longest wait for posting (goal ≤ ${GOAL_REPLICA_WAIT_S} s) | for webhook (goal ≤ ${GOAL_REPLICA_WAIT_S} s)`,
      );
      figures.forEach((f, i) => {
        const wait = waits[i]!;
        const calls = `${f.failedCalls} ${f.failedCalls === 0 ? 'met' : 'NOT met'}`;
        console.log(
          `  ${f.fault.padEnd(20)} | ${f.downS.toFixed(1).padStart(10)} s | ${String(f.inFlightAtKill).padStart(17)} | ${calls.padStart(21)} | ${String(wait.payments).padStart(18)} | ${mark(wait.posting, GOAL_REPLICA_WAIT_S, 'none').padEnd(42)} | ${mark(wait.webhook, GOAL_REPLICA_WAIT_S, 'none')}`,
        );
      });
      const failedKinds = [...new Set(client.failedCalls.map((f) => `${f.status} ${f.what.replace(/[A-Za-z0-9_-]{20,}/g, '…')}`))].slice(0, 5);
      if (failedKinds.length > 0) console.log(`  failed calls were: ${failedKinds.join('; ')}`);
    }
    for (const line of [...failures, ...notSucceeded, ...cryptoOff, ...[...missingWebhooks, ...missingRefundWebhooks].map((id) => `no webhook for ${id}`), ...providerRefundsOff].slice(0, 10)) {
      console.log(`  ! ${line}`);
    }
    const ok = lost === 0 && doubled === 0 && providerRefundsOff.length === 0 && outcomes.length === total && check.ok === true;
    console.log(`\nchaos: ${ok ? 'passed' : 'FAILED'}: ${lost} lost, ${doubled} doubled`);
    return ok ? 0 : 1;
  } finally {
    const running = [...(gateway ? [gateway] : []), ...Object.values(owners).flat(), ...watchers];
    await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
    await anvil?.stop();
    rmSync(chainState, { recursive: true, force: true });
    await inbox.close();
    await lahza.close();
    await kafka.destroy();
    await postgres.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
