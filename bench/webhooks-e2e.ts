// End to end: from a test payment's simulate request at the gateway to its signed `payment_intent.succeeded`
// webhook received and verified by a merchant's server. Prints figures beside the goal; asserts nothing.
//
//   node -r ./tools/swc-register.js bench/webhooks-e2e.ts [--seconds 60] [--rate 300] [--concurrency 32] [--services all|three]
//
// The system measured is the whole of it as `npm start` runs it (all five services, REPLICAS instances of each
// owner, one gateway, info logging) on a fresh database and Kafka namespace, unless `--services three` asks for
// sessions, the dispatcher and the gateway alone, one of each at warn logging (a breakdown of part of it, named
// as such). The receiver is a loopback server built with the receiver library (verifies every signature with
// the endpoint's secret, 300 s tolerance). Intents are created first (rate x seconds of them, plus 5 s worth
// for an unmeasured warm-up at the same rate, after which the tables are ANALYZEd), then simulated as
// `succeeded` at `rate` per second, paced evenly with at most `concurrency` requests in flight.
// Latency is measured to the moment the receiver hands the verified event over, from when the simulate request
// was sent and from when its answer came back (negative when the webhook beat the answer). Sender and receiver
// share this process's clock (performance.now()). Beside it: this VM's bare HTTP figure (the gateway's
// /health/live) and the CPU per payment of every process but this one (the load generator and the receiver).
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { callGateway, createTestDatabase, deleteNamespaceTopics, startStack, uniqueName, type ApiResponse, type RunningService } from '@payments/testing';
import { createWebhookHandler, DEFAULT_TOLERANCE_SECONDS, type VerifiedWebhook } from '@payments/webhook-receiver';
import { admin, bareHttp, servicePids, servicesArg, startWholeSystem, wholeSystemLabel } from './bench-support';
import { cpuPerRequest, cpuSnapshot, serverCpuMsPerRequest } from './cpu';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

const SECONDS = arg('seconds', 60);
const RATE = arg('rate', 300);
/** The goal's offered rate: pay → verified webhook p99 ≤ 100 ms at 300/s, every webhook verified. */
const GOAL_RATE = 300;
const GOAL_P99_MS = 100;
const PART = servicesArg();
if (PART !== undefined && PART !== 'three') throw new Error(`--services takes all or three (got ${PART})`);
const CONCURRENCY = arg('concurrency', 32);
const TOTAL = Math.round(RATE * SECONDS);
/** Unmeasured seconds at the measured rate before statistics are taken and measuring starts. */
const WARMUP_SECONDS = Math.min(5, SECONDS);
const WARMUP = Math.round(RATE * WARMUP_SECONDS);
/** How long to wait for the last webhooks once no new one has arrived. */
const DRAIN_IDLE_MS = 30_000;
const DRAIN_MAX_MS = 120_000;
const INTENT = { amount: '74.00', currency: 'USD', external_ref: 'bench-e2e', description: 'bench e2e' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (n: number) => (Number.isNaN(n) ? '-' : `${n.toFixed(1)} ms`);
  return `n ${sorted.length}  p50 ${f(percentile(sorted, 50))}  p90 ${f(percentile(sorted, 90))}  p99 ${f(percentile(sorted, 99))}  max ${f(sorted[sorted.length - 1] ?? NaN)}`;
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

interface PacedRun {
  answered: number;
  failedAnswers: number;
  /** Status (0 for a network error) → count, of answers other than 200. */
  answerStatuses: Map<number, number>;
  lastSent: number;
  lastAnswered: number;
}

/**
 * Simulates each intent at its slot (start + i / RATE); a slot missed for lack of a free lane (at most
 * CONCURRENCY in flight) is sent as soon as one frees up, and its latency counts from the actual send.
 */
async function paced(ids: string[], simulate: (id: string) => Promise<{ status: number }>, timings: Map<string, Timing>): Promise<PacedRun> {
  const run: PacedRun = { answered: 0, failedAnswers: 0, answerStatuses: new Map(), lastSent: 0, lastAnswered: 0 };
  const fail = (status: number) => {
    run.failedAnswers += 1;
    run.answerStatuses.set(status, (run.answerStatuses.get(status) ?? 0) + 1);
  };
  let inFlight = 0;
  let freed: (() => void) | undefined;
  const pending: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; i < ids.length; i += 1) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight >= CONCURRENCY) await new Promise<void>((resolve) => (freed = resolve));
    const id = ids[i]!;
    const timing = timings.get(id)!;
    inFlight += 1;
    timing.sentAt = performance.now();
    pending.push(
      simulate(id)
        .then(
          (res) => {
            timing.answeredAt = performance.now();
            if (res.status === 200) run.answered += 1;
            else fail(res.status);
          },
          (error: unknown) => {
            fail(0);
            console.error(`  simulate ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
          },
        )
        .finally(() => {
          inFlight -= 1;
          freed?.();
          freed = undefined;
        }),
    );
  }
  run.lastSent = performance.now();
  await Promise.all(pending);
  run.lastAnswered = performance.now();
  return run;
}

interface Timing {
  /** Warm-up payments are received but not counted. */
  measured: boolean;
  sentAt?: number;
  answeredAt?: number;
  receivedAt?: number;
}

/** What the run needs of the system under test, whole or in part. */
interface System {
  label: string;
  /** Short name printed with each figure. */
  name: string;
  gatewayUrl: string;
  databaseUrl: string;
  /** Every service process, pid → app name. */
  pids: Map<number, string>;
  /** A verified test merchant whose rate and amount limits are far above the run's; its test key. */
  testKey(): Promise<string>;
  call(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse>;
  stop(): Promise<void>;
}

async function startSystem(): Promise<System> {
  if (PART === 'three') {
    const stack = await startStack(['sessions', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', LOG_LEVEL: 'warn' });
    return {
      label: 'sessions, webhook-dispatcher and gateway alone (a part of the system), one instance each, warn logging',
      name: 'part: sessions+dispatcher+gateway',
      gatewayUrl: stack.gatewayUrl,
      databaseUrl: stack.db.url,
      pids: servicePids(Object.values(stack.services)),
      testKey: async () => (await stack.createMerchant({ verified: true, testLimit: 100_000, liveLimit: 100_000 })).test_key,
      call: (method, path, options) => stack.call(method, path, options),
      stop: () => stack.stop(),
    };
  }
  const db = await createTestDatabase('bench_webhooks_e2e');
  const namespace = uniqueName('bench');
  const services: RunningService[] = [];
  const stop = async () => {
    await Promise.all(services.map((service) => service.stop().catch(() => undefined)));
    await db.drop();
    await deleteNamespaceTopics(namespace).catch(() => undefined);
  };
  try {
    const { origin } = await startWholeSystem({ DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace }, services);
    return {
      label: wholeSystemLabel(),
      name: 'whole system',
      gatewayUrl: origin,
      databaseUrl: db.url,
      pids: servicePids(services),
      testKey: async () => {
        const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Webhooks', '--email', `${namespace}@example.com`, '--verified');
        await admin(db.url, 'merchant', 'limits', '--id', merchant.merchant_id, '--test', '100000', '--live', '100000');
        return merchant.test_key as string;
      },
      call: (method, path, options) => callGateway(origin, method, path, options),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main(): Promise<void> {
  console.log(`bench webhooks-e2e: ${RATE}/s for ${SECONDS} s (${TOTAL} payments), at most ${CONCURRENCY} in flight, ${new Date().toISOString()}`);
  const system = await startSystem();
  console.log(`  system: ${system.label}`);
  // The handler needs the endpoint's secret, which exists only once the endpoint (with this server's URL) does.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const receiver = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  try {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await run(system, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, (h) => (handler = h));
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await system.stop();
  }
}

async function run(system: System, receiverUrl: string, serve: (h: (req: IncomingMessage, res: ServerResponse) => void) => void): Promise<void> {
  const key = await system.testKey();
  const bare = await bareHttp(system.gatewayUrl);

  const created = await system.call('POST', '/api/v1/webhook-endpoints', { key, body: { url: receiverUrl, events: ['payment_intent.succeeded'] } });
  if (created.status !== 201) throw new Error(`creating the webhook endpoint: ${created.status} ${JSON.stringify(created.body)}`);
  const secret: string = created.body.secret;

  const timings = new Map<string, Timing>();
  let received = 0;
  let lastReceivedAt = 0;
  let otherEvents = 0;
  let verifyFailures = 0;
  const failureReasons = new Map<string, number>();
  serve(
    createWebhookHandler({
      secret,
      toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
      onEvent: (webhook: VerifiedWebhook) => {
        const at = performance.now();
        const object = (webhook.event.data as { object?: { id?: unknown } } | undefined)?.object;
        const timing = typeof object?.id === 'string' ? timings.get(object.id) : undefined;
        if (webhook.type !== 'payment_intent.succeeded' || timing === undefined || timing.receivedAt !== undefined) {
          otherEvents += 1;
          return;
        }
        timing.receivedAt = at;
        if (!timing.measured) return;
        received += 1;
        lastReceivedAt = at;
      },
      onRejected: (reason) => {
        if (reason === 'method_not_allowed' || reason === 'body_too_large' || reason === 'handler_failed') return;
        verifyFailures += 1;
        failureReasons.set(reason, (failureReasons.get(reason) ?? 0) + 1);
      },
    }),
  );

  const createIntent = async (): Promise<string> => {
    const res = await system.call('POST', '/api/v1/payment-intents', { key, body: INTENT, headers: { 'idempotency-key': randomUUID() } });
    if (res.status !== 201) throw new Error(`creating an intent: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const simulate = (id: string) => system.call('POST', `/api/v1/payment-intents/${id}/simulate`, { key, body: { result: 'succeeded' } });
  const simulateOk = async (id: string) => {
    const res = await simulate(id);
    if (res.status !== 200) throw new Error(`simulating ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  };

  // Warm-up (not measured): the dispatcher learns of the endpoint from the gateway's event a moment after it is
  // created, and payments before that have no delivery. Retry single payments until one arrives, then a few more.
  const warmStarted = Date.now();
  for (;;) {
    const id = await createIntent();
    timings.set(id, { measured: false });
    await simulateOk(id);
    const until = Date.now() + 5000;
    while (timings.get(id)!.receivedAt === undefined && Date.now() < until) await sleep(20);
    if (timings.get(id)!.receivedAt !== undefined) break;
    if (Date.now() - warmStarted > 60_000) throw new Error('no webhook arrived within 60 s of creating the endpoint');
  }

  const ids: string[] = [];
  const warmIds: string[] = [];
  const createStarted = performance.now();
  await pool(Array.from({ length: TOTAL + WARMUP }, (_, i) => i), 16, async (i) => {
    const id = await createIntent();
    (i < WARMUP ? warmIds : ids).push(id);
  });
  console.log(`  created ${ids.length + warmIds.length} intents in ${((performance.now() - createStarted) / 1000).toFixed(1)} s`);
  // Warm-up at the measured rate, then statistics: a deployment's tables have planner statistics, and these
  // fill in seconds, before autovacuum's first look. Without them every intent update scanned the whole table
  // (measured: ~3,000 buffers and 3.5 ms per update), and the dispatcher's prepared claim kept a plan made when
  // its tables held a page each (a scan of every delivery, 2.4 ms per claim at 4,000 rows).
  for (const id of warmIds) timings.set(id, { measured: false });
  await paced(warmIds, simulate, timings);
  const warmUntil = Date.now() + 30_000;
  while (warmIds.some((id) => timings.get(id)!.receivedAt === undefined) && Date.now() < warmUntil) await sleep(50);
  await analyze(system.databaseUrl);
  await sleep(3000);
  otherEvents = 0;
  verifyFailures = 0;
  failureReasons.clear();
  for (const id of ids) timings.set(id, { measured: true });

  const cpuBefore = cpuSnapshot(system.pids);
  const started = performance.now();
  const { answered, failedAnswers, answerStatuses, lastSent, lastAnswered } = await paced(ids, simulate, timings);
  const sendSeconds = (lastSent - started) / 1000;
  // Drain: until every answered payment's webhook arrived, or nothing new came for a while (bounded).
  const drainStarted = performance.now();
  lastReceivedAt = Math.max(lastReceivedAt, drainStarted);
  while (received < answered && performance.now() - lastReceivedAt < DRAIN_IDLE_MS && performance.now() - drainStarted < DRAIN_MAX_MS) await sleep(50);
  // From the first payment sent to its last webhook's arrival (or the drain's end): what the payments cost.
  const cpuAfter = cpuSnapshot(system.pids);

  const fromSent: number[] = [];
  const fromAnswered: number[] = [];
  const roundTrips: number[] = [];
  for (const id of ids) {
    const t = timings.get(id)!;
    if (t.sentAt !== undefined && t.answeredAt !== undefined) roundTrips.push(t.answeredAt - t.sentAt);
    if (t.receivedAt === undefined || t.sentAt === undefined) continue;
    fromSent.push(t.receivedAt - t.sentAt);
    if (t.answeredAt !== undefined) fromAnswered.push(t.receivedAt - t.answeredAt);
  }
  const lastArrival = Math.max(...ids.map((id) => timings.get(id)!.receivedAt ?? 0));
  const statuses = [...answerStatuses].map(([s, n]) => `${s === 0 ? 'network error' : s} x${n}`).join(', ');
  const reasons = [...failureReasons].map(([r, n]) => `${r} x${n}`).join(', ');
  const on = `[${system.name}]`;
  console.log(`  ${on} this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${bare} req/s`);
  console.log(`  ${on} sent ${ids.length} simulate requests in ${sendSeconds.toFixed(1)} s = ${(ids.length / sendSeconds).toFixed(1)}/s achieved (${RATE}/s offered); answered 200: ${answered}, other: ${failedAnswers}${statuses ? ` (${statuses})` : ''}; last answer ${((lastAnswered - started) / 1000).toFixed(1)} s after start`);
  console.log(`  ${on} received ${received} verified payment_intent.succeeded of ${answered} (${ids.length - received} missing), verify failures ${verifyFailures}${reasons ? ` (${reasons})` : ''}, other events ${otherEvents}`);
  if (received > 0) console.log(`  ${on} received ${(received / ((lastArrival - started) / 1000)).toFixed(1)}/s over the run (first send to last arrival)`);
  console.log(`  ${on} simulate answered - sent      ${summary(roundTrips)}`);
  console.log(`  ${on} received - simulate sent      ${summary(fromSent)}`);
  console.log(`  ${on} received - simulate answered  ${summary(fromAnswered)}`);
  console.log(`  ${on} CPU per payment, every process but the load generator and receiver: ${serverCpuMsPerRequest(cpuBefore, cpuAfter, ids.length).toFixed(2)} ms (by group, the generator's own share included in this total: ${cpuPerRequest(cpuBefore, cpuAfter, ids.length)})`);
  const p99 = percentile([...fromSent].sort((a, b) => a - b), 99);
  const met = p99 <= GOAL_P99_MS && received === ids.length && failedAnswers === 0 && verifyFailures === 0;
  const at = RATE === GOAL_RATE ? '' : ` (run at ${RATE}/s, not the goal's ${GOAL_RATE}/s: indicative only)`;
  console.log(`  ${on} pay → verified webhook at ${RATE}/s offered: p99 ${p99.toFixed(1)} ms, ${received} of ${ids.length} verified — goal p99 ≤ ${GOAL_P99_MS} ms at ${GOAL_RATE}/s offered, every webhook verified: ${met ? 'met' : 'NOT met'}${at}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

async function analyze(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}
