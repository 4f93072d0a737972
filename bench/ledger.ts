// The ledger under load: postings per second draining a backlog of payment events (100,000 by default) while
// merchants read their balance at 500/s, then the lag from a payment's event to its posting at an even 500
// payments/s. Events go straight to sessions' topics (its events and the copies of its paid ones, as its relay publishes them), spread over many merchants: a
// stand-in for sessions that can write a backlog of 100,000 payments in seconds. The system measured is the whole
// of it as `npm start` runs it (all five services, REPLICAS instances of each owner, one gateway, info logging;
// every consumer of payments, refunds and the dispatcher too, takes the same events) unless `--services two` asks
// for the ledger and the gateway alone, one of each at warn logging (a breakdown of part of it, named as such).
// Prints figures and the goals beside them, and this VM's bare HTTP figure; asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/ledger.ts [--backlog 100000] [--rate 500] [--seconds 20] [--services all|two]
import { randomBytes } from 'node:crypto';
import { getPriority } from 'node:os';
import { STREAMS, topicName } from '@payments/events';
import { ensureTopics } from '@payments/messaging';
import { commandUrlSettings, createTestDatabase, deleteNamespaceTopics, freePort, startService, testKafka, uniqueName, type RunningService } from '@payments/testing';
import type { Producer } from 'kafkajs';
import { Pool } from 'pg';
import { admin, bareHttp, numberArg, servicePids, servicesArg, startWholeSystem, wholeSystemLabel } from './bench-support';
import { cpuPerRequest, cpuSnapshot } from './cpu';
import { flushSummary, startFlushProbe } from './flush-probe';
import { openLoop } from './open-loop';

const backlog = numberArg('backlog', 100_000);
const rate = numberArg('rate', 500);
const seconds = numberArg('seconds', 20);
const MERCHANTS = 200;
const part = servicesArg();
if (part !== undefined && part !== 'two') throw new Error(`--services takes all or two (got ${part})`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let serial = 0;
/** A payment_intent.succeeded as sessions publishes it: 1.5 % of an amount that varies. */
const VISIBILITY_SAMPLES = 40;

/** A MoneyString as integer cents (exact; a balance may be past the API's amount bounds). */
function centsOf(money: string): bigint {
  const [whole, fraction = '00'] = money.replace('-', '').split('.');
  const cents = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  return money.startsWith('-') ? -cents : cents;
}

function paymentEvent(merchantId: string): { key: string; value: string } {
  serial += 1;
  const amountCents = 1_000 + (serial % 50_000);
  const feeCents = Math.floor((amountCents * 150 + 5_000) / 10_000);
  const money = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  const intentId = `pi_test_${randomBytes(12).toString('hex')}`;
  const envelope = {
    id: `evt_${randomBytes(12).toString('hex')}`,
    type: 'payment_intent.succeeded',
    schema_version: 1,
    aggregate_type: 'payment_intent',
    aggregate_id: intentId,
    sequence: 3,
    merchant_id: merchantId,
    environment: 'test',
    occurred_at: new Date().toISOString(),
    correlation_id: 'req_bench_ledger',
    causation_id: null,
    data: {
      payment: { id: String(9_000_000_000_000 + serial), method: 'crypto', amount: money(amountCents), fee: money(feeCents), fee_rate_bps: 150, net: money(amountCents - feeCents), currency: 'USD' },
    },
  };
  return { key: intentId, value: JSON.stringify(envelope) };
}

/** Sends payment events as sessions' relay does: on its events topic and, copied, on the topic of its paid events. */
async function send(producer: Producer, topics: readonly string[], messages: Array<{ key: string; value: string }>): Promise<void> {
  await producer.sendBatch({ acks: 1, topicMessages: topics.map((topic) => ({ topic, messages })) });
}

async function produce(producer: Producer, topics: readonly string[], merchants: string[], n: number): Promise<void> {
  for (let sent = 0; sent < n; sent += 1000) {
    await send(producer, topics, Array.from({ length: Math.min(1000, n - sent) }, (_, i) => paymentEvent(merchants[(sent + i) % merchants.length]!)));
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_ledger');
  const namespace = uniqueName('bench');
  // Settings under test can be passed through the environment (e.g. BALANCE_CACHE_MS=0: every read asks the ledger).
  const passThrough = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(BALANCE_CACHE_MS|DB_POOL|COMMAND_|PROCESS_NICE)/.test(k))) as Record<string, string>;
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, RATE_LIMIT_TEST_PER_SEC: '100000', ...passThrough };
  const topics = [topicName(namespace, STREAMS.sessions), topicName(namespace, STREAMS.sessionPayments)];
  const kafka = testKafka();
  const producer = kafka.producer();
  await producer.connect();
  const services: RunningService[] = [];
  const closers: Array<() => Promise<void>> = [];
  try {
    await ensureTopics(kafka, topics);
    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Ledger', '--email', `${namespace}@example.com`);
    const merchants = [merchant.merchant_id as string, ...Array.from({ length: MERCHANTS - 1 }, (_, i) => `acct_bench${i}`)];
    // The system up (the gateway needs the ledgers' command ports), the VM's bare HTTP figure, then the ledgers
    // stopped while the backlog is written, and started again on the same ports to drain it.
    let origin: string;
    let label: string;
    let on: string;
    let ledgers: RunningService[];
    if (part === 'two') {
      const partial = { ...common, LOG_LEVEL: 'warn' };
      const ledger = await startService('ledger', { ...partial, PORT: String(await freePort()) });
      services.push(ledger);
      const gateway = await startService('gateway', { ...partial, ...commandUrlSettings({ ledger }), PORT: String(await freePort()) });
      services.push(gateway);
      origin = gateway.url;
      ledgers = [ledger];
      label = 'the ledger and the gateway alone (a part of the system), one instance each, warn logging';
      on = '[part: ledger+gateway]';
    } else {
      const system = await startWholeSystem(common, services);
      origin = system.origin;
      ledgers = system.groups.ledger;
      label = wholeSystemLabel();
      on = '[whole system]';
    }
    const bare = await bareHttp(origin);
    await Promise.all(ledgers.map((ledger) => ledger.stop()));
    for (const ledger of ledgers) services.splice(services.indexOf(ledger), 1);
    const started = Date.now();
    await produce(producer, topics, merchants, backlog);
    console.log(`bench ledger: ${backlog} payment events written in ${((Date.now() - started) / 1000).toFixed(1)} s over ${MERCHANTS} merchants; ${new Date().toISOString()}; system: ${label}`);
    console.log(`  ${on} this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${bare} req/s`);
    const probe = await startFlushProbe();
    const drainStarted = Date.now();
    ledgers = await Promise.all(ledgers.map((ledger) => startService('ledger', ledger.env)));
    services.push(...ledgers);
    const pids = servicePids(services);
    const cpuBefore = cpuSnapshot(pids);

    const pool = new Pool({ connectionString: db.url, max: 2 });
    closers.push(() => pool.end());
    const count = async () => Number((await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger.postings`)).rows[0]!.n);
    // Progress from the ledgers' own counters (their processes were started for the drain): a count(*) of the
    // journal every 100 ms would be a scan of up to 100,000 rows on the cores being measured. A counter moves just
    // before each transaction commits, so the journal is counted after it (once, unless the last commit is still on its way).
    const posted = async () => {
      const texts = await Promise.all(ledgers.map((ledger) => fetch(`${ledger.opsUrl}/metrics`).then((res) => res.text(), () => '')));
      return texts.reduce((total, text) => total + [...text.matchAll(/^ledger_postings_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0), 0);
    };
    // Balance reads at an even 500/s for as long as the backlog drains (open loop: each latency counts from the
    // read's due time; autocannon's overallRate sent each second's reads in a burst, see open-loop.ts). The
    // generator's connections are open and its code warm before the first read is due (see open-loop.ts).
    const drained = new AbortController();
    const readResult = openLoop({
      origin,
      rate: 500,
      seconds: 3600,
      preconnect: 16,
      connections: 64,
      signal: drained.signal,
      request: () => ({ method: 'GET', path: '/api/v1/balance', headers: { authorization: `Bearer ${merchant.test_key}` } }),
    });
    // The floor beside it: the same gateway's bare /health/live at 100/s, for how long any request waits for a
    // core on this VM while the drain keeps both busy.
    const bareResult = openLoop({
      origin,
      rate: 100,
      seconds: 3600,
      preconnect: 4,
      connections: 4,
      signal: drained.signal,
      request: () => ({ method: 'GET', path: '/health/live', headers: {} }),
    });
    while ((await posted()) < backlog) await sleep(100);
    while ((await count()) < backlog) await sleep(100);
    const drainS = (Date.now() - drainStarted) / 1000;
    drained.abort();
    const cpuAfter = cpuSnapshot(pids);
    const flushes = await probe.stop();
    const during = await readResult;
    const bareDuring = await bareResult;
    // The drain itself, from the first posting to the last (the ledger's boot and group join before it are a fixed
    // cost, not throughput); the figure with the boot is printed beside it.
    const [{ seconds: workingS }] = (
      await pool.query<{ seconds: number }>(`SELECT extract(epoch FROM max(created_at) - min(created_at))::float8 AS seconds FROM ledger.postings`)
    ).rows as [{ seconds: number }];
    const drainRate = backlog / workingS;
    console.log(
      `  ${on} backlog: ${backlog} postings in ${workingS.toFixed(1)} s from the first posting to the last = ${Math.round(drainRate)} postings/s` +
        ` (${drainS.toFixed(1)} s = ${Math.round(backlog / drainS)}/s from the ledger's start, boot included) — goal ≥ 5,000/s: ${drainRate >= 5000 ? 'met' : 'NOT met'}`,
    );
    console.log(`  ${on} CPU per posting while draining, reads included (ms): ${cpuPerRequest(cpuBefore, cpuAfter, backlog)}; the ledger at nice ${getPriority(ledgers[0]!.process.pid!)}`);
    console.log(`  ${on} balance reads at 500/s meanwhile: p50 ${during.latency.p50} ms  p99 ${during.latency.p99} ms  non2xx ${during.non2xx} — goal p99 ≤ 20 ms: ${during.latency.p99 <= 20 ? 'met' : 'NOT met'}`);
    console.log(`  ${on} bare HTTP meanwhile (gateway /health/live at 100/s): p50 ${bareDuring.latency.p50} ms  p99 ${bareDuring.latency.p99} ms`);
    // Each consumer transaction waits for its commit's flush: a slow disk slows the drain whatever the cores do.
    console.log(`  ${on} ${flushSummary(flushes)}`);

    // Lag at an even rate: each event's occurred_at is its send time; the posting's created_at its booking.
    const before = await count();
    const paced = Date.now();
    const total = rate * seconds;
    for (let i = 0; i < total; i += rate / 10) {
      await sleep(Math.max(0, paced + (i * 1000) / rate - Date.now()));
      await send(producer, topics, Array.from({ length: rate / 10 }, (_, j) => paymentEvent(merchants[(i + j) % merchants.length]!)));
    }
    while ((await count()) < before + total) await sleep(250);
    const lags = (
      await pool.query<{ ms: string }>(`SELECT extract(epoch FROM created_at - occurred_at) * 1000 AS ms FROM ledger.postings ORDER BY created_at DESC LIMIT $1`, [total])
    ).rows
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    console.log(
      `  ${on} lag event → posting at ${rate} payments/s for ${seconds} s: p50 ${percentile(lags, 50).toFixed(0)} ms  p99 ${percentile(lags, 99).toFixed(0)} ms  max ${lags.at(-1)?.toFixed(0)} ms — goal p99 ≤ 200 ms: ${percentile(lags, 99) <= 200 ? 'met' : 'NOT met'}`,
    );
    // A payment's effect on GET /api/v1/balance, as a merchant polling its balance every 20 ms sees it: from the
    // event's send to the first read showing it (posting lag, the gateway's balance cache and the read together).
    const reader = merchants[0]!;
    const readBalance = async () => {
      const res = await fetch(`${origin}/api/v1/balance`, { headers: { authorization: `Bearer ${merchant.test_key}` } });
      return centsOf(((await res.json()) as { available: Array<{ amount: string }> }).available[0]!.amount);
    };
    const visible: number[] = [];
    for (let i = 0; i < VISIBILITY_SAMPLES; i += 1) {
      const start = await readBalance();
      const event = paymentEvent(reader);
      const net = centsOf((JSON.parse(event.value) as { data: { payment: { net: string } } }).data.payment.net);
      const sent = Date.now();
      await send(producer, topics, [event]);
      while ((await readBalance()) < start + net) await sleep(20);
      visible.push(Date.now() - sent);
      await sleep(Math.random() * 300);
    }
    visible.sort((a, b) => a - b);
    console.log(
      `  ${on} payment → visible in GET /api/v1/balance (polled every 20 ms, ${VISIBILITY_SAMPLES} payments): p50 ${percentile(visible, 50).toFixed(0)} ms  p99 ${percentile(visible, 99).toFixed(0)} ms — goal p99 ≤ 1,000 ms: ${percentile(visible, 99) <= 1000 ? 'met' : 'NOT met'}`,
    );

    // The journal alone: the payments were written to the topic directly, not made by sessions (which has no record of them).
    const check = await admin(db.url, 'ledger', 'check', '--journal-only');
    console.log(`  ${on} ledger check (journal only): ${check.ok ? 'clean' : 'BROKEN'} (${check.postings} postings)`);
  } finally {
    await producer.disconnect();
    await Promise.all(services.map((s) => s.stop().catch(() => undefined)));
    for (const close of closers) await close();
    await db.drop();
    await deleteNamespaceTopics(namespace).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
