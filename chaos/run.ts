// The fault suite (`npm run chaos`): N payments made the way a merchant's server makes them (create, simulate or,
// one in four, the customer pays at Lahza's stand-in through the checkout; refund part of it), while the gateway,
// sessions, the ledger, refunds and the webhook-dispatcher are each killed with SIGKILL and restarted, the Kafka
// broker is stopped and started, and PostgreSQL is restarted (an immediate shutdown, like a crash). One in eight is
// a live payment at Lahza, whose refund goes through Lahza (pending until Lahza has processed it, learnt from its
// notification or the background check). Asserts that nothing was lost or doubled (payments, refunds, their
// webhooks, Lahza asked once per refund, and the ledger: each environment's balance equals its payments' nets less
// its refunds to the cent, and `ledger check` is clean) and prints, per fault, how long until creates succeed and
// webhooks flow again. The ledger twice over 1,000 payments: `--payments 1000 --faults ledger,ledger`.
// Usage: node -r ./tools/swc-register.js chaos/run.ts [--payments 400] [--rate 6] [--faults gateway,sessions,...]
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { commandUrlSettings, freePort, LahzaStandIn, PrivateKafka, PrivatePostgres, REPO_ROOT, startService, type AppName, type RunningService } from '@payments/testing';
import { MerchantClient, type Environment, type PaymentOutcome } from './merchant-client';
import { WebhookInbox } from './webhook-inbox';

const FAULTS = ['gateway', 'sessions', 'ledger', 'refunds', 'webhook-dispatcher', 'kafka', 'postgres'] as const;
type Fault = (typeof FAULTS)[number];

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const payments = Number(arg('payments') ?? 400);
const faults = (arg('faults') ?? FAULTS.join(',')).split(',').filter(Boolean) as Fault[];
// Spread over the faults (about 13 s each, after 5 s of calm), so every fault meets payments in flight.
const rate = Number(arg('rate') ?? Math.max(0.5, payments / (10 + faults.length * 13)));
const GOAL_CREATE_S = 2;
const GOAL_WEBHOOK_S = 5;

interface FaultFigures {
  fault: Fault;
  /** Kill (or stop) until the restarted process reports ready (the broker's port answers, pg_ctl returns). */
  downS: number;
  readyToCreateS: number | null;
  readyToWebhookS: number | null;
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
function admin(databaseUrl: string, ...args: string[]): Promise<Record<string, any>> {
  const cli = join(REPO_ROOT, 'tools', 'admin.mjs');
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [cli, ...args, '--json'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } }, (error, stdout, stderr) =>
      stdout.trim() ? resolve(JSON.parse(stdout)) : reject(new Error(`admin ${args.join(' ')}: ${error?.message ?? ''} ${stderr}`)),
    ),
  );
}

async function main(): Promise<number> {
  console.log(`chaos: ${payments} payments at ${rate.toFixed(1)}/s; faults ${faults.join(', ')}; ${new Date().toISOString()}`);
  const kafka = new PrivateKafka(await freePort(), await freePort());
  const postgres = new PrivatePostgres(await freePort());
  const inbox = new WebhookInbox();
  const lahza = new LahzaStandIn({ secretKey: `sk_test_chaos_${randomBytes(8).toString('hex')}` });
  const services: Partial<Record<AppName, RunningService>> = {};
  try {
    await kafka.start();
    await postgres.start();
    const receiverUrl = await inbox.listen();
    const lahzaUrl = await lahza.listen();
    const common = {
      DATABASE_URL: postgres.url,
      KAFKA_BROKERS: kafka.brokers,
      KAFKA_NAMESPACE: `chaos_${randomBytes(4).toString('hex')}`,
      WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      // A delivery cut short by a killed dispatcher comes back when its lease ends.
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_LEASE_MS: '7000',
      RATE_LIMIT_TEST_PER_SEC: '10000',
      RATE_LIMIT_LIVE_PER_SEC: '10000',
      // Live sessions pay at Lahza (here the stand-in); test sessions offer its test page beside the sandboxes.
      LAHZA_BASE_URL: lahzaUrl,
      LAHZA_TEST_SECRET_KEY: lahza.secretKey,
      LAHZA_LIVE_SECRET_KEY: lahza.secretKey,
    };
    for (const app of ['sessions', 'ledger', 'webhook-dispatcher'] as const) services[app] = await startService(app, { ...common, PORT: String(await freePort()) });
    // Refunds asks sessions for payments whose event has not reached it (e.g. while its consumer rejoins).
    services.refunds = await startService('refunds', { ...common, SESSIONS_URL: services.sessions!.commandUrl!, PORT: String(await freePort()) });
    services.gateway = await startService('gateway', { ...common, ...commandUrlSettings(services), PORT: String(await freePort()) });

    const merchant = await admin(postgres.url, 'merchant', 'create', '--name', 'Chaos Shop', '--email', 'chaos@example.com', '--verified');
    const client = new MerchantClient(() => services.gateway!.url, { test: merchant.test_key!, live: merchant.live_key! }, lahza);
    for (const environment of ['test', 'live'] as const) inbox.secrets[environment] = (await client.createEndpoint(`${receiverUrl}/${environment}`, environment)).secret;

    // Lahza processes the refunds asked of it within a second, and tells the gateway of every other one (a
    // notification lost to a fault is left to the refunds service's background check).
    let notificationsLost = 0;
    const lahzaSettles = setInterval(() => {
      const pending = lahza.refunds.filter((r) => r.status === 'pending');
      lahza.processRefunds();
      for (const refund of pending.filter((r) => r.id % 2 === 0)) {
        void lahza.notifyRefund(`${services.gateway!.url}/providers/lahza/notifications`, refund.id).then(
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
    const paying = (async () => {
      for (let i = 0; i < payments; i++) {
        await sleep(Math.max(0, started + (i * 1000) / rate - Date.now()));
        inFlight.push(client.pay(i).then((o) => void outcomes.push(o), (error: Error) => void failures.push(error.message)));
      }
      await Promise.all(inFlight);
    })();

    const figures: FaultFigures[] = [];
    await sleep(5000);
    for (const fault of faults) {
      const at = Date.now();
      if (fault === 'kafka') {
        await kafka.stop();
        await sleep(3000);
        await kafka.start();
      } else if (fault === 'postgres') {
        await postgres.restart();
      } else {
        const service = services[fault]!;
        await service.kill();
        services[fault] = await startService(fault, service.env);
      }
      const ready = Date.now();
      const create = await waitFor(() => client.createSuccesses.find((t) => t >= ready), 60_000);
      const webhook = await waitFor(() => inbox.arrivals.find((a) => a.at >= ready)?.at, 60_000);
      figures.push({
        fault,
        downS: seconds(ready - at),
        readyToCreateS: create === undefined ? null : seconds(create - ready),
        readyToWebhookS: webhook === undefined ? null : seconds(webhook - ready),
      });
      console.log(`chaos: ${fault} done (${JSON.stringify(figures.at(-1))})`);
      await sleep(3000);
    }
    await paying;
    clearInterval(lahzaSettles);

    // Every payment's webhook, then what the API and the database say.
    const succeeded = new Set(outcomes.map((o) => o.intentId));
    const refunded = new Set(outcomes.map((o) => o.refundId));
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
    for (const outcome of outcomes) {
      refundCentsOf[outcome.environment] += centsOf(outcome.refundAmount);
      if (outcome.lahzaReference) {
        const atLahza = lahza.refunds.filter((r) => r.transaction === outcome.lahzaReference).map((r) => `${r.amount} ${r.status}`);
        const expected = outcome.environment === 'live' ? [`${centsOf(outcome.refundAmount)} processed`] : [];
        if (JSON.stringify(atLahza) !== JSON.stringify(expected)) providerRefundsOff.push(`${outcome.refundId}: Lahza has [${atLahza.join(', ')}]`);
      }
      const intent = await client.get(outcome.intentId, outcome.environment);
      netCents[outcome.environment] += centsOf(String(intent.net_amount));
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
    const check = await admin(postgres.url, 'ledger', 'check');
    const offBy = (cents: number) => (cents === 0 ? 'no' : moneyOf(Math.abs(cents)));

    // A refund lost would leave the balance high and the sum short; a refund doubled, the reverse. A refund Lahza
    // was never asked for, or asked twice, shows in providerRefundsOff.
    const ledgerHigh = Number(ledgerOff.test > 0) + Number(ledgerOff.live > 0);
    const ledgerLow = Number(ledgerOff.test < 0) + Number(ledgerOff.live < 0);
    const lost = failures.length + notSucceeded.length + missingWebhooks.length + missingRefundWebhooks.length + ledgerHigh + (refundSumOff < 0 ? 1 : 0);
    const doubled =
      doubledEvents.length + reused.length + (stored.intents - stored.refs) + Math.max(0, stored.payments - stored.refs) + extraRefunds + ledgerLow + (refundSumOff > 0 ? 1 : 0);
    const live = outcomes.filter((o) => o.environment === 'live');
    console.log('');
    console.log(`chaos: ${outcomes.length}/${payments} payments succeeded in ${seconds(Date.now() - started)} s; ${outcomes.reduce((n, o) => n + o.retries, 0)} merchant retries`);
    console.log(
      `  paid at Lahza (stand-in) through the checkout: ${outcomes.filter((o) => o.lahzaReference).length} (${live.length} live, refunded through Lahza); by simulate: ${outcomes.filter((o) => !o.lahzaReference).length}`,
    );
    console.log(`  intents stored ${stored.intents} (distinct references ${stored.refs}), payments stored ${stored.payments}`);
    console.log(`  refunds stored ${stored.refunds} over ${stored.refunded_payments} payments, ${moneyOf(Number(stored.refund_cents))} USD (asked ${moneyOf(refundCents)} USD)`);
    console.log(
      `  Lahza: ${lahza.refunds.length} refunds asked of it for ${live.length} live refunds (${moneyOf(refundCentsOf.live)} USD; ${live.filter((o) => o.refundWasPending).length} answered pending, then completed), ${providerRefundsOff.length} off; ${notificationsLost} of its notifications lost to faults`,
    );
    console.log(`  webhooks: ${inbox.arrivals.length} verified arrivals, ${events.size} intents with payment_intent.succeeded, ${refundEvents.size} refunds with refund.completed, ${inbox.rejected} rejected`);
    for (const environment of ['test', 'live'] as const) {
      console.log(`  ledger, ${environment}: balance ${balances[environment]} USD, nets less refunds ${moneyOf(netCents[environment] - refundCentsOf[environment])} USD`);
    }
    console.log(`  ledger check ${check.ok ? 'clean' : `BROKEN: ${JSON.stringify(check.findings)}`} (${String(check.postings)} postings)`);
    console.log(
      `  lost ${lost} (failed ${failures.length}, not succeeded ${notSucceeded.length}, no webhook ${missingWebhooks.length + missingRefundWebhooks.length}, refunds short ${refundSumOff < 0 ? 'yes' : 'no'}, balance off: test ${offBy(ledgerOff.test)}, live ${offBy(ledgerOff.live)})`,
    );
    console.log(
      `  doubled ${doubled} (two event ids for one change ${doubledEvents.length}, payment id reused ${reused.length}, extra intents ${stored.intents - stored.refs}, extra refunds ${extraRefunds})`,
    );
    console.log('');
    console.log(`  fault                | down → ready | ready → create ok (goal ≤ ${GOAL_CREATE_S} s) | ready → webhook (goal ≤ ${GOAL_WEBHOOK_S} s)`);
    for (const f of figures) {
      const mark = (v: number | null, goal: number) => (v === null ? 'none within 60 s' : `${v.toFixed(1)} s ${v <= goal ? 'met' : 'NOT met'}`);
      console.log(`  ${f.fault.padEnd(20)} | ${f.downS.toFixed(1).padStart(10)} s | ${mark(f.readyToCreateS, GOAL_CREATE_S).padEnd(27)} | ${mark(f.readyToWebhookS, GOAL_WEBHOOK_S)}`);
    }
    for (const line of [...failures, ...notSucceeded, ...[...missingWebhooks, ...missingRefundWebhooks].map((id) => `no webhook for ${id}`), ...providerRefundsOff].slice(0, 10)) {
      console.log(`  ! ${line}`);
    }
    const ok = lost === 0 && doubled === 0 && providerRefundsOff.length === 0 && outcomes.length === payments && check.ok === true;
    console.log(`\nchaos: ${ok ? 'passed' : 'FAILED'}: ${lost} lost, ${doubled} doubled`);
    return ok ? 0 : 1;
  } finally {
    await Promise.all(Object.values(services).map((s) => s!.stop().catch(() => undefined)));
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
