// Create and get through the gateway under load, against a baseline measured in the same run: a minimal Node
// HTTP server doing one Postgres INSERT per request. The system measured is the whole of it as `npm start` runs it
// (all five services, REPLICAS instances of each owner, production logging) unless `--services two` asks for the
// gateway and sessions alone (a breakdown of part of it, named as such). Also the idle stack's CPU, and creates at
// an ordinary rate (--ordinary, default 100/s, even pace) with their CPU above the idle stack's. Also the VM's bare HTTP figure (the gateway's /health/live),
// the command hop's own cost (ping through the gateway to sessions, minus bare HTTP), create at one connection
// and at half its own peak rate (open loop). Prints figures and the goals beside them; asserts nothing.
// With --tracing R it measures create throughput twice instead, tracing off and on at sampling ratio R (every
// service exporting OTLP/JSON to a local sink that counts and drops), and prints both and the cost.
// Usage: node -r ./tools/swc-register.js bench/api.ts [--seconds 30] [--connections 64] [--rate N] [--ordinary 100] [--services all|two] [--tracing 0.1]
import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import autocannon, { Result } from 'autocannon';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { createTestDatabase, freePort, startStack, TestTraceCollector, uniqueName, type RunningService } from '@payments/testing';
import { admin, bareHttp, startWholeSystem, stopSystem, wholeSystemLabel } from './bench-support';
import { cpuPerRequest, cpuSnapshot, idleCores, serverCpuMsPerRequest, serverTicks, TICKS_PER_SECOND, type CpuSnapshot } from './cpu';
import { flushSummary, startFlushProbe } from './flush-probe';
import { openLoop } from './open-loop';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('seconds', 30);
const connections = arg('connections', 64);
// --rate N offers N requests/s in total (open loop) instead of as many as 64 connections can: CPU per request
// measured below saturation varies much less from run to run than throughput at saturation.
const rate = arg('rate', 0);
// The ordinary rate: creates offered at an even pace well below saturation, where a payment service spends its life.
const ordinary = arg('ordinary', 100);
const servicesIndex = process.argv.indexOf('--services');
const twoServices = servicesIndex > 0 && process.argv[servicesIndex + 1] === 'two';
// --only baseline|idle|live|self|ping|create|create-1|create-half|ordinary|get runs one phase (profiling); default all of them.
// `live` is GET /health/live (the VM's bare HTTP figure); `self` and `ping` are the gateway's ping diagnostic on
// its operations port, answered by the gateway itself and by sessions (one command, no database): they differ by
// what the command hop costs.
const tracingIndex = process.argv.indexOf('--tracing');
const tracingRatio = tracingIndex > 0 ? process.argv[tracingIndex + 1] : undefined;
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const runs = (phase: string) => only === undefined || only === phase;

function summary(name: string, r: Result): string {
  const ok = r.requests.total - r.non2xx - r.errors;
  // Which statuses the failures were, so a 429 or a 503 is told apart from a bug.
  const statuses = r.non2xx > 0 ? ` (${Object.entries(r.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, { count }]) => `${code}×${count}`).join(', ')})` : '';
  return `${name.padEnd(10)} ${String(Math.round(r.requests.average)).padStart(6)} req/s  p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms  max ${r.latency.max} ms  ok ${ok}  non2xx ${r.non2xx}${statuses}  errors ${r.errors}`;
}

function run(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ connections, duration: seconds, ...(rate > 0 ? { overallRate: rate } : {}), ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const goal = (met: boolean, text: string) => `goal ${text}: ${met ? 'met' : 'NOT met'}`;

async function baseline(databaseUrl: string): Promise<{ server: Server; url: string; pool: Pool }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query('CREATE TABLE IF NOT EXISTS public.baseline (id bigserial primary key, body jsonb not null, created_at timestamptz default now())');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      pool.query('INSERT INTO public.baseline (body) VALUES ($1) RETURNING id', [body || '{}']).then(
        (r) => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: r.rows[0].id }));
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}`, pool };
}

async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+_(?:sum|count))\{([^}]*)\} ([\d.e+-]+)$/.exec(line);
    if (m) values.set(`${m[1]}{${m[2]}}`, Number(m[3]));
  }
  return values;
}

/** Mean seconds per observation of a histogram between two scrapes, summed over label sets matching `filter`. */
function meanMs(before: Map<string, number>, after: Map<string, number>, metric: string, filter: (labels: string) => boolean): string {
  let sum = 0;
  let count = 0;
  for (const [key, value] of after) {
    const m = new RegExp(`^${metric}_(sum|count)\\{(.*)\\}$`).exec(key);
    if (!m || !filter(m[2])) continue;
    const delta = value - (before.get(key) ?? 0);
    if (m[1] === 'sum') sum += delta;
    else count += delta;
  }
  return count > 0 ? `${((sum / count) * 1000).toFixed(2)} ms (n=${count})` : 'n/a';
}

/** What the phases need of the system under test, whole or in part. */
interface System {
  label: string;
  gatewayUrl: string;
  databaseUrl: string;
  gatewayOps: string;
  /** The first sessions instance's operations port (its handler means). */
  sessionsOps: string;
  /** Every service process, pid → app name (instances of one app are one group). */
  pids: Map<number, string>;
  testKey(): Promise<string>;
  stop(): Promise<void>;
}

async function startSystem(passThrough: Record<string, string>): Promise<System> {
  if (twoServices) {
    const stack = await startStack(['sessions', 'gateway'], { LOG_LEVEL: 'warn', ...passThrough });
    return {
      label: 'gateway and sessions alone (a part of the system), warn logging',
      gatewayUrl: stack.gatewayUrl,
      databaseUrl: stack.db.url,
      gatewayOps: stack.services.gateway!.opsUrl,
      sessionsOps: stack.services.sessions!.opsUrl,
      pids: new Map(Object.values(stack.services).map((service) => [service!.process.pid!, service!.app])),
      testKey: async () => (await stack.createMerchant({ verified: true, testLimit: 100_000, liveLimit: 100_000 })).test_key,
      stop: () => stack.stop(),
    };
  }
  const db = await createTestDatabase('bench_api');
  const namespace = uniqueName('bench');
  const services: RunningService[] = [];
  const stop = async () => {
    await stopSystem(services, db, namespace);
  };
  try {
    // The services' default log level (info, request lines included), as in production.
    const { origin, gateway, sessions } = await startWholeSystem({ DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, ...passThrough }, services);
    return {
      label: wholeSystemLabel(),
      gatewayUrl: origin,
      databaseUrl: db.url,
      gatewayOps: gateway.opsUrl,
      sessionsOps: sessions.opsUrl,
      pids: new Map(services.map((service) => [service.process.pid!, service.app])),
      testKey: async () => {
        const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench API', '--email', `${namespace}@example.com`, '--verified');
        await admin(db.url, 'merchant', 'limits', '--id', merchant.merchant_id, '--test', '100000', '--live', '100000');
        return merchant.test_key as string;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Committed Postgres transactions in the bench's database and commands Redis has run: what a request costs in round trips. */
async function roundTripCounts(pool: Pool): Promise<{ transactions: number; redis: number; byCommand: Map<string, number> }> {
  const { rows } = await pool.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  const stats = (await redis.info('commandstats')) as string;
  redis.disconnect();
  const byCommand = new Map([...stats.matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  const calls = [...byCommand.values()].reduce((sum, n) => sum + n, 0);
  return { transactions: Number(rows[0]!.n), redis: calls, byCommand };
}

/** CPU of every service, Postgres, the broker and Redis with nothing offered, after a settling pause; printed. */
async function measureIdle(system: System): Promise<{ cores: number }> {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idleSeconds = Math.max(10, Math.min(seconds, 30));
  const cores = await idleCores(system.pids, idleSeconds * 1000);
  console.log(`idle stack over ${idleSeconds} s: ${cores.total.toFixed(3)} cores (${cores.byGroup}) — ${goal(cores.total <= 0.05, '≤ 0.05 cores')}`);
  return { cores: cores.total };
}

async function breakdown(system: System, name: string, run: () => Promise<Result>, command: string, route: string): Promise<Result & { serverCpuMs: number; cpu: [CpuSnapshot, CpuSnapshot] }> {
  const [g0, s0] = await Promise.all([scrape(system.gatewayOps), scrape(system.sessionsOps)]);
  const cpu0 = cpuSnapshot(system.pids);
  const result = await run();
  const cpu1 = cpuSnapshot(system.pids);
  const [g1, s1] = await Promise.all([scrape(system.gatewayOps), scrape(system.sessionsOps)]);
  console.log(summary(name, result));
  const byCommand = (l: string) => l.includes(`command="sessions.${command}"`);
  console.log(`  per hop (means): gateway HTTP ${meanMs(g0, g1, 'http_request_duration_seconds', (l) => l.includes(route))}` +
    ` | command round trip ${meanMs(g0, g1, 'rpc_round_trip_seconds', byCommand)}` +
    ` | sessions handler ${meanMs(s0, s1, 'command_handle_seconds', byCommand)}`);
  console.log(`  CPU per request (ms): ${cpuPerRequest(cpu0, cpu1, result.requests.total)}`);
  return { ...result, serverCpuMs: serverCpuMsPerRequest(cpu0, cpu1, result.requests.total), cpu: [cpu0, cpu1] };
}

const createBody = JSON.stringify({ amount: '74.00', currency: 'USD', external_ref: 'bench', description: 'bench' });

function createRequestFor(gatewayUrl: string, auth: string) {
  return {
    url: `${gatewayUrl}/api/v1/payment-intents`,
    requests: [
      {
        method: 'POST' as const,
        setupRequest: (req: autocannon.Request) => ({ ...req, body: createBody, headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() } }),
      },
    ],
  };
}

/**
 * Create throughput of a system started afresh with `env`, warmed up as the create phase is; then CPU per create at
 * an even `rate` below saturation, where batching is alike with tracing off and on (saturated throughput moves with
 * the machine's noise by 10-20 % from run to run on this kind of VM).
 */
async function createThroughput(env: Record<string, string>, name: string, rate: number): Promise<Result & { serverCpuMs: number; atRateCpuMs: number }> {
  const system = await startSystem(env);
  const pool = new Pool({ connectionString: system.databaseUrl, max: 1 });
  try {
    const auth = `Bearer ${await system.testKey()}`;
    const createRequest = createRequestFor(system.gatewayUrl, auth);
    await autocannon({ ...createRequest, connections, amount: 2000 });
    await pool.query('ANALYZE');
    console.log(`  this VM's bare HTTP (gateway /health/live): ${Math.round(await bareHttp(system.gatewayUrl))} req/s`);
    const saturated = await breakdown(system, name, () => run(createRequest), 'payment-intents.create', 'payment-intents"');
    const atRate = await breakdown(
      system,
      `${name}, ${rate}/s offered`,
      () =>
        openLoop({
          origin: system.gatewayUrl,
          rate,
          seconds,
          preconnect: 8,
          request: () => ({ method: 'POST', path: '/api/v1/payment-intents', headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: createBody }),
        }),
      'payment-intents.create',
      'payment-intents"',
    );
    return { ...saturated, atRateCpuMs: atRate.serverCpuMs };
  } finally {
    await pool.end();
    await system.stop();
  }
}

/** Tracing off, then on at `ratio` (exported to a local sink), on systems started afresh: what it costs a create. */
async function compareTracing(passThrough: Record<string, string>, ratio: string): Promise<void> {
  const sink = new TestTraceCollector({ keepSpans: false });
  await sink.listen();
  const rate = arg('tracing-rate', 400);
  try {
    const off = await createThroughput(passThrough, 'create, tracing off', rate);
    const on = await createThroughput({ ...passThrough, ...sink.settings(ratio), OTEL_BSP_SCHEDULE_DELAY: '1000' }, `create, tracing on at ${ratio}`, rate);
    const cost = (1 - on.requests.average / off.requests.average) * 100;
    const cpuCost = (on.atRateCpuMs / off.atRateCpuMs - 1) * 100;
    console.log(`tracing off: ${Math.round(off.requests.average)} creates/s, ${off.serverCpuMs.toFixed(2)} ms CPU per create; at ${rate}/s ${off.atRateCpuMs.toFixed(3)} ms`);
    console.log(`tracing on at ${ratio} sampling: ${Math.round(on.requests.average)} creates/s, ${on.serverCpuMs.toFixed(2)} ms CPU per create; at ${rate}/s ${on.atRateCpuMs.toFixed(3)} ms; ${sink.received} spans exported`);
    console.log(`  tracing costs ${cost.toFixed(1)} % of create throughput — ${goal(cost <= 5, '≤ 5 %')} (one run each: compare a few runs before concluding)`);
    console.log(`  and ${cpuCost.toFixed(1)} % more CPU per create at ${rate}/s offered (all processes but the load generator)`);
  } finally {
    await sink.close();
  }
}

async function main(): Promise<void> {
  console.log(`bench api: ${connections} connections, ${seconds} s each, ${new Date().toISOString()}`);
  // Settings under test can be passed through the environment (e.g. COMMAND_CONNECTIONS=8, or OTEL_* to trace to
  // a collector of one's own).
  const passThrough = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => /^(KAFKA_|DB_POOL|COMMAND_|OTEL_)/.test(k) && k !== 'KAFKA_BROKERS'),
  ) as Record<string, string>;
  if (tracingRatio !== undefined) return compareTracing(passThrough, tracingRatio);
  const system = await startSystem(passThrough);
  console.log(`system: ${system.label}`);
  const base = await baseline(system.databaseUrl);
  try {
    const auth = `Bearer ${await system.testKey()}`;
    let baselineRps = 0;
    const body = createBody;

    if (runs('baseline')) {
      const baseResult = await run({ url: `${base.url}/`, method: 'POST', body, headers: { 'content-type': 'application/json' } });
      console.log(summary('baseline', baseResult));
      baselineRps = baseResult.requests.average;
    }

    const createRequest = createRequestFor(system.gatewayUrl, auth);
    if (runs('create') || runs('create-1') || runs('create-half') || runs('ordinary')) {
      // Unmeasured warm-up (compiled code, pooled connections), then planner statistics for the tables it filled:
      // a deployment's tables have them, fresh ones get them only at autovacuum's first ANALYZE.
      await autocannon({ ...createRequest, connections, amount: 2000 });
      await base.pool.query('ANALYZE');
    }

    let idleStack: { cores: number } | undefined;
    if (runs('idle') || runs('ordinary')) idleStack = await measureIdle(system);

    let selfCpuMs: number | undefined;
    const ops = system.gatewayOps;
    const phases = [
      ['live', `${system.gatewayUrl}/health/live`],
      ['self', `${ops}/internal/services/gateway/ping`],
      ['ping', `${ops}/internal/services/sessions/ping`],
    ] as const;
    for (const [phase, path] of phases) {
      if (!runs(phase)) continue;
      const result = await breakdown(system, phase, () => run({ url: path }), 'ping', phase === 'live' ? 'live"' : 'ping"');
      if (phase === 'live') console.log(`  this VM's bare HTTP (gateway /health/live): ${Math.round(result.requests.average)} req/s`);
      if (phase === 'self') selfCpuMs = result.serverCpuMs;
      if (phase === 'ping' && selfCpuMs !== undefined) {
        const hop = result.serverCpuMs - selfCpuMs;
        console.log(`  command hop: ${hop.toFixed(3)} ms of CPU per call (ping − self, all processes) — ${goal(hop <= 0.1, '≤ 0.1 ms')}`);
      }
    }

    let peak = 0;
    if (runs('create')) {
      const createResult = await breakdown(system, 'create', () => run(createRequest), 'payment-intents.create', 'payment-intents"');
      peak = createResult.requests.average;
      console.log(`  create CPU, all processes but the load generator: ${createResult.serverCpuMs.toFixed(2)} ms — ${goal(createResult.serverCpuMs <= 1.0, '≤ 1.0 ms')}`);
      if (baselineRps) {
        const share = (createResult.requests.average / baselineRps) * 100;
        console.log(`  create/baseline throughput: ${share.toFixed(0)}% — ${goal(share >= 20, '≥ 20 %')}`);
      }
    }
    if (runs('create-1')) {
      const one = await breakdown(system, 'create ×1', () => run({ ...createRequest, connections: 1 }), 'payment-intents.create', 'payment-intents"');
      console.log(`  one connection: ${goal(one.latency.p50 <= 4, 'p50 ≤ 4 ms')}`);
    }
    if (runs('create-half') && (peak > 0 || rate > 0)) {
      // Half of the peak just measured (or --rate when this phase runs alone).
      const offered = Math.max(1, Math.round(peak > 0 ? peak / 2 : rate));
      const probe = await startFlushProbe();
      const half = await breakdown(
        system,
        `create@${offered}/s`,
        () =>
          openLoop({
            origin: system.gatewayUrl,
            rate: offered,
            seconds,
            // The generator in steady state (connections open, its own code warm): see open-loop.ts.
            preconnect: 32,
            request: () => ({
              method: 'POST',
              path: '/api/v1/payment-intents',
              headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
              body,
            }),
          }),
        'payment-intents.create',
        'payment-intents"',
      );
      // A flush of hundreds of ms is a stall of every create in flight (each waits for its commit on disk).
      console.log(`  ${flushSummary(await probe.stop())}`);
      console.log(`  half of peak offered open-loop (${offered}/s, even pace, latency from when each was due): ${goal(half.latency.p99 <= 50, 'p99 ≤ 50 ms')}`);
    }

    if (runs('ordinary')) {
      // Creates at an ordinary rate, evenly paced: what one costs every process of the machine above what the
      // stack burns idle (the load generator apart), and the latency a merchant sees, from when each was due.
      const createAt = (offered: number) =>
        openLoop({
          origin: system.gatewayUrl,
          rate: offered,
          seconds,
          preconnect: 8,
          request: () => ({ method: 'POST', path: '/api/v1/payment-intents', headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body }),
        });
      const idle = idleStack ?? (await measureIdle(system));
      const counts0 = await roundTripCounts(base.pool);
      const result = await breakdown(system, `create@${ordinary}/s`, () => createAt(ordinary), 'payment-intents.create', 'payment-intents"');
      const counts1 = await roundTripCounts(base.pool);
      const per = (a: number, b: number) => ((b - a) / Math.max(result.requests.total, 1)).toFixed(2);
      console.log(`  per create: Postgres transactions ${per(counts0.transactions, counts1.transactions)} (commits and single statements, every schema), Redis commands ${per(counts0.redis, counts1.redis)} (${[...counts1.byCommand]
        .map(([command, n]) => [command, n - (counts0.byCommand.get(command) ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([command, n]) => `${command} ${per(0, n)}`)
        .join(', ')})`);
      const [before, after] = result.cpu;
      const spentSeconds = seconds; // the run's length (the open loop keeps its pace)
      const aboveIdleMs = ((serverTicks(before, after) / TICKS_PER_SECOND - idle.cores * spentSeconds) * 1000) / Math.max(result.requests.total, 1);
      console.log(`  CPU per create at ${ordinary}/s offered, every process but the load generator, above the idle stack's ${idle.cores.toFixed(3)} cores: ${aboveIdleMs.toFixed(2)} ms — ${goal(aboveIdleMs <= 3, '≤ 3 ms')}`);
      console.log(`  latency at ${ordinary}/s offered (even pace, from when each was due): ${goal(result.latency.p99 <= 25, 'p99 ≤ 25 ms')}`);
      // Run alone (--only ordinary), the phase still says how fast this VM is; afterwards, so it does not warm the figure.
      if (only === 'ordinary') console.log(`  this VM's bare HTTP (gateway /health/live): ${await bareHttp(system.gatewayUrl)} req/s`);
    }

    if (!runs('get')) return;
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${system.gatewayUrl}/api/v1/payment-intents`, { method: 'POST', body, headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() } });
      ids.push(((await res.json()) as { id: string }).id);
    }
    let n = 0;
    const getResult = await breakdown(
      system,
      'get',
      () =>
        run({
          url: `${system.gatewayUrl}/api/v1/payment-intents/x`,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/api/v1/payment-intents/${ids[n++ % ids.length]}`, headers: { authorization: auth } }) }],
        }),
      'payment-intents.get',
      'payment-intents/:id"',
    );
    console.log(`  get: ${goal(getResult.requests.average >= 3000 && getResult.latency.p99 <= 20, '≥ 3,000/s with p99 ≤ 20 ms')}`);
  } finally {
    base.server.close();
    await base.pool.end();
    await system.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
