// The hosted checkout page at an even offered rate (200 pages/s by default) over many sessions, with its weight
// (the page loads nothing else: styles and script are inline). The system measured is the whole of it as
// `npm start` runs it (all five services, REPLICAS instances of each owner, one gateway, info logging) unless
// `--services two` asks for sessions and the gateway alone, one of each at warn logging (a breakdown of part of
// it, named as such). Prints figures beside the goals and this VM's bare HTTP figure; asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/checkout.ts [--rate 200] [--seconds 20] [--services all|two]
import { randomUUID } from 'node:crypto';
import { commandUrlSettings, createTestDatabase, freePort, startService, uniqueName, type RunningService } from '@payments/testing';
import { admin, bareHttp, numberArg, servicesArg, startWholeSystem, stopSystem, wholeSystemLabel } from './bench-support';
import { openLoop } from './open-loop';

const rate = numberArg('rate', 200);
const seconds = numberArg('seconds', 20);
const part = servicesArg();
if (part !== undefined && part !== 'two') throw new Error(`--services takes all or two (got ${part})`);

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_checkout');
  const namespace = uniqueName('bench');
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, RATE_LIMIT_TEST_PER_SEC: '100000' };
  const services: RunningService[] = [];
  try {
    let origin: string;
    let label: string;
    let on: string;
    if (part === 'two') {
      const sessions = await startService('sessions', { ...common, LOG_LEVEL: 'warn', PORT: String(await freePort()) });
      services.push(sessions);
      const gateway = await startService('gateway', { ...common, LOG_LEVEL: 'warn', ...commandUrlSettings({ sessions }), PORT: String(await freePort()) });
      services.push(gateway);
      origin = gateway.url;
      label = 'sessions and the gateway alone (a part of the system), one instance each, warn logging';
      on = '[part: sessions+gateway]';
    } else {
      origin = (await startWholeSystem(common, services)).origin;
      label = wholeSystemLabel();
      on = '[whole system]';
    }
    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Checkout', '--email', `${namespace}@example.com`);
    const bare = await bareHttp(origin);
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${origin}/api/v1/payment-intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ amount: '25.00', currency: 'USD', description: 'Two mugs and a teapot' }),
      });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const page = await fetch(`${origin}/checkout/${ids[0]}`);
    const bytes = Buffer.byteLength(await page.text());
    let n = 0;
    // preconnect: the generator in steady state (connections open, its own code warm): see open-loop.ts.
    const pageRequest = () => ({ method: 'GET' as const, path: `/checkout/${ids[n++ % ids.length]}`, headers: {} });
    const result = await openLoop({ origin, rate, seconds, connections: 64, preconnect: 8, request: pageRequest });
    console.log(`bench checkout: ${new Date().toISOString()}; system: ${label}`);
    console.log(`  ${on} this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${bare} req/s`);
    console.log(`  ${on} page weight: ${bytes} bytes of HTML, nothing else loaded (styles and script inline) — goal ≤ 30 KB: ${bytes <= 30 * 1024 ? 'met' : 'NOT met'}`);
    console.log(
      `  ${on} checkout page at ${rate}/s offered for ${seconds} s over ${ids.length} sessions: p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  non2xx ${result.non2xx} — goal p99 ≤ 20 ms: ${result.latency.p99 <= 20 ? 'met' : 'NOT met'}`,
    );
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
