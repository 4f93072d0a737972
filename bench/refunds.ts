// Refund creates at an even offered rate (100/s by default) through the gateway, each on one of many payments
// with its own Idempotency-Key; prints the latency figures beside the goal and this VM's bare HTTP figure.
// The system measured is the whole of it as `npm start` runs it (all five services, REPLICAS instances of each
// owner, one gateway, info logging) unless `--services three` asks for sessions, refunds and the gateway alone,
// one of each at warn logging (a breakdown of part of it, named as such). Asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/refunds.ts [--rate 100] [--seconds 20] [--payments 500] [--services all|three]
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { commandUrlSettings, createTestDatabase, freePort, startService, uniqueName, type RunningService } from '@payments/testing';
import { admin, bareHttp, numberArg, servicesArg, startWholeSystem, stopSystem, wholeSystemLabel } from './bench-support';
import { flushSummary, startFlushProbe } from './flush-probe';
import { openLoop } from './open-loop';

const rate = numberArg('rate', 100);
const seconds = numberArg('seconds', 20);
const paymentCount = numberArg('payments', 500);
const part = servicesArg();
if (part !== undefined && part !== 'three') throw new Error(`--services takes all or three (got ${part})`);

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_refunds');
  const namespace = uniqueName('bench');
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, RATE_LIMIT_TEST_PER_SEC: '100000' };
  const services: RunningService[] = [];
  try {
    let origin: string;
    let label: string;
    let on: string;
    if (part === 'three') {
      const partial = { ...common, LOG_LEVEL: 'warn' };
      const sessions = await startService('sessions', { ...partial, PORT: String(await freePort()) });
      services.push(sessions);
      const refunds = await startService('refunds', { ...partial, SESSIONS_URL: sessions.commandUrl!, PORT: String(await freePort()) });
      services.push(refunds);
      const gateway = await startService('gateway', { ...partial, ...commandUrlSettings({ sessions, refunds }), PORT: String(await freePort()) });
      services.push(gateway);
      origin = gateway.url;
      label = 'sessions, refunds and the gateway alone (a part of the system), one instance each, warn logging';
      on = '[part: sessions+refunds+gateway]';
    } else {
      origin = (await startWholeSystem(common, services)).origin;
      label = wholeSystemLabel();
      on = '[whole system]';
    }
    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Refunds', '--email', `${namespace}@example.com`);
    const headers = { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json' };
    const bare = await bareHttp(origin);

    // Payments to refund from, made the way a merchant makes them; a cent of one of them per refund.
    const paymentIds: string[] = [];
    const post = async (path: string, body: object) => {
      const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path} answered ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };
    for (let i = 0; i < paymentCount; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, paymentCount - i) }, async () => {
          const intent = await post('/api/v1/payment-intents', { amount: '999.00', currency: 'USD' });
          const paid = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'togo' });
          paymentIds.push(paid.payment_id!);
        }),
      );
    }
    // The refunds service learns payments from sessions' events; wait until it has recorded them all, as in steady
    // state (a refund of a payment it does not know yet asks sessions first, a slower path measured elsewhere).
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const recorded = async () =>
      (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds.payments WHERE merchant_id = $1', [merchant.merchant_id])).rows[0]!.n;
    const until = Date.now() + 60_000;
    while ((await recorded()) < paymentIds.length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 250));
    console.log(`bench refunds: ${on} the refunds service knows ${await recorded()} of ${paymentIds.length} payments`);
    await pg.end();
    await new Promise((resolve) => setTimeout(resolve, 2000));

    let n = 0;
    const probe = await startFlushProbe();
    const result = await openLoop({
      origin,
      rate,
      seconds,
      connections: 64,
      // The generator in steady state (connections open, its own code warm): see open-loop.ts.
      preconnect: 8,
      request: () => ({
        method: 'POST',
        path: `/api/v1/payments/${paymentIds[n++ % paymentIds.length]}/refunds`,
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ amount: '0.01' }),
      }),
    });
    const flushes = await probe.stop();
    console.log(`bench refunds: ${new Date().toISOString()}; system: ${label}`);
    console.log(`  ${on} this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${bare} req/s`);
    console.log(
      `  ${on} refund create at ${rate}/s offered for ${seconds} s over ${paymentIds.length} payments: p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  non2xx ${result.non2xx}  errors ${result.errors} — goal p99 ≤ 50 ms: ${result.latency.p99 <= 50 ? 'met' : 'NOT met'}`,
    );
    console.log(`  ${on} ${flushSummary(flushes)}`);
  } finally {
    await stopSystem(services, db, namespace);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
