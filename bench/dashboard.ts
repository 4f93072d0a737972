// The dashboard's payments list page with 100,000 payments in the merchant's history, at an even offered rate
// (20 pages/s by default: a busy team's dashboard, well below saturation), signed in as a merchant's user does (a
// Redis session, the user and merchant read, the refunds service's list command, the page rendered). All five
// services run, at the production log level. Prints figures beside the goal; asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/dashboard.ts [--rate 20] [--seconds 20] [--payments 100000]
import argon2 from 'argon2';
import { createTestDatabase, uniqueName, type RunningService } from '@payments/testing';
import { Client } from 'pg';
import { admin, load, numberArg, startWholeSystem, stopSystem } from './bench-support';
import { openLoop } from './open-loop';
import { seedOperationsHistory } from './operations-seed';

const rate = numberArg('rate', 20);
const seconds = numberArg('seconds', 20);
const payments = numberArg('payments', 100_000);

/** Signs in through the pages (CSRF cookie and token, then the form), as a browser does; answers the cookie header. */
async function signIn(origin: string, email: string, password: string): Promise<string> {
  const loginPage = await fetch(`${origin}/dashboard/login`);
  const csrfCookie = loginPage.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await loginPage.text())?.[1];
  if (!token) throw new Error('no CSRF token on the sign-in page');
  const signedIn = await fetch(`${origin}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: csrfCookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, email, password, next: '' }).toString(),
  });
  const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('__Host-dashboard_session='));
  if (signedIn.status !== 303 || !session) throw new Error(`sign-in failed: ${signedIn.status}`);
  return session.split(';')[0]!;
}

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_dashboard');
  const namespace = uniqueName('bench');
  // Production logging: the services' default level (info), request lines included.
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, LOG_LEVEL: 'info' };
  const services: RunningService[] = [];
  try {
    const { origin } = await startWholeSystem(common, services);

    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Dashboard', '--email', `${namespace}@example.com`);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const started = Date.now();
    await seedOperationsHistory((text, params) => pg.query(text, params as unknown[]), { merchantId: merchant.merchant_id, environment: 'test', count: payments, idBase: 1_000_000 });
    const seededIn = Date.now() - started;
    const password = 'bench password 1';
    const email = `owner-${namespace}@example.com`.toLowerCase();
    await pg.query(`INSERT INTO gateway.users (id, merchant_id, email, password_hash, role, email_confirmed_at) VALUES ($1, $2, $3, $4, 'owner', now())`, [
      `usr_${'b'.repeat(24)}`,
      merchant.merchant_id,
      email,
      await argon2.hash(password, { type: argon2.argon2id }),
    ]);
    await pg.end();
    const cookie = await signIn(origin, email, password);

    const bare = await load({ url: `${origin}/health/live`, connections: 32, duration: 3 });
    const first = await fetch(`${origin}/dashboard/test/payments`, { headers: { cookie } });
    const html = await first.text();
    if (first.status !== 200 || !html.includes('<table')) throw new Error(`the payments page answered ${first.status}`);
    const rows = (html.match(/<tr/g) ?? []).length - 1;
    // An older page: the cursor of the 25th payment from the top, 40 pages in.
    const pages = [
      { name: 'first page', path: '/dashboard/test/payments' },
      { name: 'filtered (status=refunded)', path: '/dashboard/test/payments?status=refunded' },
      { name: 'filtered (amount_min=10&amount_max=20)', path: '/dashboard/test/payments?amount_min=10&amount_max=20' },
      { name: 'a page 1,000 payments back', path: `/dashboard/test/payments?starting_after=${1_000_000 + payments - 1000}` },
    ];
    console.log(`bench dashboard: ${new Date().toISOString()}; this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${Math.round(bare.requests.average)} req/s`);
    console.log(`  ${payments} payments seeded in ${seededIn} ms; the first page lists ${rows} rows in ${Buffer.byteLength(html)} bytes; all five services, log level info`);
    for (const page of pages) {
      // One at a time first (also warms the path): the page's own cost, without queueing.
      const alone: number[] = [];
      for (let i = 0; i < 100; i++) {
        const t0 = performance.now();
        await (await fetch(`${origin}${page.path}`, { headers: { cookie } })).text();
        alone.push(performance.now() - t0);
      }
      alone.sort((a, b) => a - b);
      console.log(`  payments list, ${page.name}, one at a time (100): min ${alone[0]!.toFixed(1)} ms  p50 ${alone[50]!.toFixed(1)} ms  p90 ${alone[90]!.toFixed(1)} ms`);
      const result = await openLoop({ origin, rate, seconds, connections: 16, preconnect: 4, request: () => ({ method: 'GET', path: page.path, headers: { cookie } }) });
      console.log(
        `  payments list, ${page.name}, at ${rate}/s offered for ${seconds} s: p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  non2xx ${result.non2xx} — goal p99 ≤ 50 ms: ${result.latency.p99 <= 50 && result.non2xx === 0 ? 'met' : 'NOT met'}`,
      );
    }
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
