// Webhook delivery throughput and latency, and what dead endpoints cost the healthy ones: a breakdown of one part
// of the system (the dispatcher's delivery parts alone, in this process), not a figure of record. The whole
// system's webhook figure (pay → verified webhook through all five services as `npm start` runs them) is
// bench/webhooks-e2e.ts.
//
//   node -r ./tools/swc-register.js bench/webhooks.ts [--healthy 50] [--dead 10] [--rate 200] [--seconds 15]
//     [--backlog 5000] [--timeout-ms 10000] [--pairs 3]
//
// The dispatcher's parts run in this process on a fresh database (no Kafka: events enter through the same
// handler the consumer calls, in their own transactions): the delivery worker with the service's default limits,
// the runner and the HTTP sender. Receivers are local servers built with the receiver library (they verify every
// signature); dead receivers accept the connection and never answer, so each of their attempts runs into the
// full timeout.
//
// Runs in pairs, each run on a fresh database (a second phase on the same tables is slower for their growth
// alone: measured, whichever phase comes second), each after 5 s of unmeasured warm-up and ANALYZE. Which kind
// of run goes first alternates from pair to pair, and the kinds are also compared pooled: these VMs change speed
// by more than 10 % within minutes, so a single pair measures that drift as much as the dead endpoints. (Running
// the two side by side in one process doubles the load and saturates the machine: measured, p99 0.6–1.4 s.)
//   1. paced: `rate` events/s spread over the healthy endpoints for `seconds`, plus the same share (and a backlog
//      each) for `dead` more endpoints that answer too;
//   2. the same traffic with those `dead` endpoints hanging: only dead-ness differs from run 1, so the healthy
//      endpoints' latency shows what dead endpoints cost them; then throughput: a backlog of `backlog`
//      deliveries to the healthy endpoints drained while the dead ones hang (first dead run only).
// Latency (healthy endpoints only) is from the start of the transaction that created the delivery to the
// receiver handing the verified event over.
import { Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newEnvelope, type EventEnvelope } from '@payments/events';
import { randomBase62 } from '@payments/ids';
import { createTestDatabase, type TestDatabase } from '@payments/testing';
import { createWebhookServer } from '@payments/webhook-receiver';
import { DEVELOPMENT_WEBHOOK_SECRETS_KEY, encryptSecret, newWebhookSecret, parseSecretsKey } from '@payments/webhooks';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_MIGRATIONS } from '../apps/webhook-dispatcher/src/migrations/webhooks-schema';
import { createDispatcher } from '../apps/webhook-dispatcher/src/webhook-dispatcher.composition';

Logger.overrideLogger(['error']);

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

const HEALTHY = arg('healthy', 50);
const DEAD = arg('dead', 10);
const RATE = arg('rate', 200);
const SECONDS = arg('seconds', 15);
const BACKLOG = arg('backlog', 5000);
const TIMEOUT_MS = arg('timeout-ms', 10_000);
const PAIRS = arg('pairs', 3);
/** The service's defaults. */
const LIMITS = { perEndpoint: 4, maxInFlight: 128, pollIntervalMs: 1000, leaseMs: 2000 };
const KEY = parseSecretsKey(DEVELOPMENT_WEBHOOK_SECRETS_KEY);

interface Target {
  merchant: string;
  server: Server;
  dead: boolean;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const f = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(1));
  return `n ${sorted.length}  p50 ${f(percentile(sorted, 50))} ms  p90 ${f(percentile(sorted, 90))} ms  p99 ${f(percentile(sorted, 99))} ms  max ${f(sorted[sorted.length - 1] ?? NaN)} ms`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function intentEvent(merchant: string): EventEnvelope<unknown> {
  const id = `pi_test_${randomBase62()}`;
  return newEnvelope({
    type: 'payment_intent.created',
    aggregate_id: id,
    aggregate_type: 'payment_intent',
    sequence: 1,
    merchant_id: merchant,
    environment: 'test',
    correlation_id: 'bench',
    data: { object: { id, object: 'payment_intent', status: 'requires_payment_method', amount: '74.00', currency: 'USD' } },
  });
}

async function listen(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

async function main(): Promise<void> {
  const pooled = { answering: [] as number[], dead: [] as number[] };
  const p99s: string[] = [];
  const p99 = (latencies: number[]) => percentile([...latencies].sort((a, b) => a - b), 99);
  console.log(
    `bench webhooks: part of the system, the dispatcher's delivery worker, runner and sender alone in this process (no Kafka, no other service; the whole system's figure is webhooks-e2e); ${HEALTHY} healthy + ${DEAD} dead endpoints, ${RATE}/s for ${SECONDS} s, ${PAIRS} pairs, ${new Date().toISOString()}`,
  );
  for (let pair = 0; pair < PAIRS; pair += 1) {
    const result = { answering: [] as number[], dead: [] as number[] };
    // Alternating which kind goes first spreads the machine's drift over both.
    for (const extrasHang of pair % 2 === 0 ? [false, true] : [true, false]) {
      const database = await createTestDatabase('bench_webhooks');
      try {
        result[extrasHang ? 'dead' : 'answering'] = await run(database, extrasHang, extrasHang && pair === 0);
      } finally {
        await database.drop();
      }
    }
    pooled.answering.push(...result.answering);
    pooled.dead.push(...result.dead);
    p99s.push(`${p99(result.answering).toFixed(1)} / ${p99(result.dead).toFixed(1)}`);
  }
  console.log(`\n[part: dispatcher alone] ${PAIRS} pairs; healthy p99, all answering / ${DEAD} dead: ${p99s.join('; ')} ms`);
  console.log(`  [part: dispatcher alone] pooled, all answering  ${summary(pooled.answering)}`);
  console.log(`  [part: dispatcher alone] pooled, ${DEAD} dead        ${summary(pooled.dead)}`);
  console.log(`  [part: dispatcher alone] p99 with dead endpoints vs without: ${(((p99(pooled.dead) - p99(pooled.answering)) / p99(pooled.answering)) * 100).toFixed(1)} %`);
}

/** One run; answers the healthy endpoints' latencies of its paced phase. */
async function run(database: TestDatabase, extrasHang: boolean, drain: boolean): Promise<number[]> {
  const dataSource: DataSource = await database.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
  const dispatcher = createDispatcher(dataSource, {
    schema: 'webhooks',
    sender: { timeoutMs: TIMEOUT_MS, allowInsecure: true },
    delivery: {
      userAgent: 'PaymentsWebhooks/1.0',
      retryScheduleMs: [5000, 300_000],
      disableAfterMs: 5 * 24 * 3600 * 1000,
      secretsKey: KEY,
      eventsTopic: 'bench.webhooks.events.v1',
    },
    eventRetentionDays: 30,
  });
  const { deliveries, endpointEvents, publicEvents, sender } = dispatcher;
  // Claims run one at a time per worker: their count and duration show how much of a delivery's wait they are.
  const claims = { count: 0, rows: 0, ms: 0 };
  const claim = deliveries.claim.bind(deliveries);
  deliveries.claim = async (request) => {
    const started = performance.now();
    const claimed = await claim(request);
    claims.count += 1;
    claims.rows += claimed.length;
    claims.ms += performance.now() - started;
    return claimed;
  };
  const claimSummary = () => {
    const line = `claims ${claims.count}, ${(claims.rows / claims.count).toFixed(1)} deliveries and ${(claims.ms / claims.count).toFixed(2)} ms each`;
    Object.assign(claims, { count: 0, rows: 0, ms: 0 });
    return line;
  };

  // Creation times by event id; the receivers compute the latency when the verified event arrives.
  const committedAt = new Map<string, number>();
  let latencies: number[] = [];
  let received = 0;
  let deadRequests = 0;
  const targets: Target[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  for (let i = 0; i < HEALTHY + DEAD; i += 1) {
    const dead = i >= HEALTHY;
    const merchant = `acct_bench_${i}`;
    const secret = newWebhookSecret();
    const verifying = createWebhookServer({
      secret,
      onEvent: (webhook) => {
        if (dead) return; // an extra endpoint while it answers: not measured
        const at = committedAt.get(webhook.id);
        if (at !== undefined) latencies.push(performance.now() - at);
        received += 1;
      },
    });
    const server = dead
      ? createServer((req, res) => {
          if (!extrasHang) {
            verifying.emit('request', req, res);
            return;
          }
          req.resume();
          hanging.add(res);
          deadRequests += 1;
          res.on('close', () => hanging.delete(res));
        })
      : verifying;
    await listen(server);
    targets.push({ merchant, server, dead });
    const now = new Date().toISOString();
    const endpointId = `we_${randomBase62()}`;
    await dataSource.transaction((manager) =>
      endpointEvents.handle(
        newEnvelope({
          type: 'webhook_endpoint.created',
          aggregate_id: endpointId,
          aggregate_type: 'webhook_endpoint',
          sequence: 1,
          merchant_id: merchant,
          environment: 'test',
          correlation_id: 'bench',
          data: {
            id: endpointId,
            merchant_id: merchant,
            environment: 'test',
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
            events: null,
            status: 'enabled',
            secret_encrypted: encryptSecret(secret, KEY),
            previous_secret_encrypted: null,
            previous_secret_expires_at: null,
            created_at: now,
            updated_at: now,
          },
        }) as EventEnvelope,
        manager,
      ),
    );
  }
  const healthy = targets.filter((t) => !t.dead);
  const dead = targets.filter((t) => t.dead);

  /** Inserts events for `merchants` (one each, in one transaction) and stamps their commit time. */
  async function publish(merchants: string[]): Promise<void> {
    const envelopes = merchants.map(intentEvent);
    // Stamped before the transaction (a fast worker can deliver before commit() returns): includes the insert.
    const at = performance.now();
    for (const envelope of envelopes) committedAt.set(envelope.id, at);
    await dataSource.transaction(async (manager) => {
      for (const envelope of envelopes) await publicEvents.handle(envelope as EventEnvelope, manager);
      await publicEvents.beforeCommit(manager);
    });
  }

  const startWorker = () => {
    const worker = dispatcher.worker(LIMITS);
    worker.start();
    return worker;
  };

  /** `RATE` events/s to the healthy endpoints, and as many per endpoint to the extra ones. */
  async function paced(label: string, seconds = SECONDS): Promise<void> {
    latencies = [];
    received = 0;
    let next = 0;
    let sent = 0;
    const started = Date.now();
    // Catches up after a slow tick, so the offered rate holds while the publisher keeps up.
    while (Date.now() - started < seconds * 1000) {
      const due = Math.floor(((Date.now() - started) / 1000) * RATE) - sent;
      const batch: string[] = [];
      for (let i = 0; i < due; i += 1) {
        batch.push(healthy[next % healthy.length]!.merchant);
        next += 1;
        if (next % healthy.length === 0) batch.push(...dead.map((t) => t.merchant));
      }
      if (batch.length > 0) await publish(batch);
      sent += due;
      await sleep(20);
    }
    const elapsed = (Date.now() - started) / 1000;
    const deadline = Date.now() + 30_000;
    while (received < sent && Date.now() < deadline) await sleep(50);
    if (label === '') return;
    console.log(`[part: dispatcher alone] ${label}: ${received} of ${sent} healthy deliveries in ${elapsed.toFixed(1)} s (${(sent / elapsed).toFixed(0)}/s offered)`);
    console.log(`  healthy latency  ${summary(latencies)}`);
    console.log(`  ${claimSummary()}`);
  }

  // After a few unmeasured seconds (connections, caches, compiled code); fresh tables have no planner statistics
  // until autovacuum gets to them, the service's tables have them.
  let worker = startWorker();
  await paced('', 5);
  claimSummary();
  await dataSource.query('ANALYZE webhooks.deliveries, webhooks.events, webhooks.endpoints, webhooks.attempts');
  // The extra endpoints get a backlog each (for dead ones it keeps their slots busy) and their share of events.
  for (let i = 0; i < 20; i += 1) await publish(dead.map((t) => t.merchant));
  if (!extrasHang) {
    await paced(`paced, ${HEALTHY} + ${DEAD} endpoints all answering`);
    await worker.stop();
    await closeAll();
    return latencies;
  }
  await paced(`paced, ${HEALTHY} healthy + ${DEAD} dead endpoints`);
  const measured = latencies;
  const deadAttempts = (await dataSource.query(
    `SELECT count(*)::int AS n FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id
     JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id WHERE ep.merchant_id LIKE 'acct_bench_%' AND a.status_code IS NULL`,
  )) as Array<{ n: number }>;
  console.log(`  dead endpoints: ${deadRequests} requests received, ${hanging.size} hanging at the end, ${deadAttempts[0]!.n} attempts timed out`);
  await worker.stop();
  if (!drain) {
    for (const res of hanging) res.destroy();
    await closeAll();
    return measured;
  }

  // Throughput: a backlog to the healthy endpoints while the dead ones keep hanging.
  for (let sent = 0; sent < BACKLOG; sent += healthy.length) await publish(healthy.map((t) => t.merchant));
  for (let i = 0; i < 5; i += 1) await publish(dead.map((t) => t.merchant));
  received = 0;
  latencies = [];
  const total = Math.ceil(BACKLOG / healthy.length) * healthy.length;
  const started = Date.now();
  worker = startWorker();
  while (received < total && Date.now() - started < 300_000) await sleep(20);
  const seconds = (Date.now() - started) / 1000;
  console.log(`[part: dispatcher alone] throughput (${claimSummary()}): ${received} deliveries to ${HEALTHY} healthy endpoints in ${seconds.toFixed(1)} s = ${(received / seconds).toFixed(0)}/s while ${DEAD} endpoints hang (${hanging.size} requests hanging at the end)`);
  for (const res of hanging) res.destroy();
  await worker.stop();
  await closeAll();
  return measured;

  async function closeAll(): Promise<void> {
    await sender.close();
    for (const target of targets) {
      target.server.closeAllConnections();
      await new Promise<void>((resolve) => target.server.close(() => resolve()));
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
