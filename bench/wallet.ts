// Wallet (`togo`) payments on the hosted checkout at an even offered rate (100/s by default, below saturation): each
// request is a signed-in customer's click on "Pay … from your wallet" (the wallet session and its form token
// checked, sessions records the attempt, the ledger debits the wallet and credits the merchant in one posting, the
// session succeeds, 303 to the shop). All five services run, at the production log level. Customers are spread over
// many wallets, as real ones are (payments from one wallet queue on its row by design). Prints figures beside the
// goal; asserts nothing.
// Usage: node -r ./tools/swc-register.js bench/wallet.ts [--rate 100] [--seconds 20] [--wallets 50]
import { randomUUID } from 'node:crypto';
import { createTestDatabase, signInWalletCustomer, uniqueName, type RunningService, type WalletCustomer } from '@payments/testing';
import { formatMoney } from '@payments/money';
import { Client } from 'pg';
import { admin, load, numberArg, startWholeSystem, stopSystem } from './bench-support';
import { cpuPerRequest, cpuSnapshot } from './cpu';
import { openLoop } from './open-loop';

const rate = numberArg('rate', 100);
const seconds = numberArg('seconds', 20);
const walletCount = numberArg('wallets', 50);

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_wallet');
  const namespace = uniqueName('bench');
  // Production logging: the services' default level (info), request lines included.
  // Every customer signs in from this one address: its code mails are not a flood.
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, LOG_LEVEL: 'info', RATE_LIMIT_TEST_PER_SEC: '100000', WALLET_CODES_PER_ADDRESS: '100000' };
  const services: RunningService[] = [];
  try {
    const { origin, ledger } = await startWholeSystem(common, services);
    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Wallet', '--email', `${namespace}@example.com`);

    const total = Math.ceil(rate * seconds) + 8 * 25;
    const amountCents = 1250;
    const amount = formatMoney(amountCents);
    const create = async () => {
      const res = await fetch(`${origin}/api/v1/payment-intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ amount, currency: 'USD', methods: ['togo'], success_url: 'https://shop.example/thanks' }),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const intents: string[] = [];
    while (intents.length < total) intents.push(...(await Promise.all(Array.from({ length: Math.min(50, total - intents.length) }, create))));

    // Each wallet holds enough for its share of the payments; each customer signs in once (the session lasts the run).
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const perWallet = Math.ceil(total / walletCount) + 1;
    const customers: WalletCustomer[] = [];
    for (let w = 0; w < walletCount; w++) {
      const email = `customer-${w}-${namespace}@example.com`.toLowerCase();
      await admin(db.url, 'wallet', 'credit', '--email', email, '--amount', formatMoney(perWallet * amountCents), '--key', `bench-${w}`, '--env', 'test', { LEDGER_URL: ledger.commandUrl! });
      customers.push(await signInWalletCustomer({ origin, databaseUrl: db.url, environment: 'test', email }));
    }

    const bare = await load({ url: `${origin}/health/live`, connections: 32, duration: 3 });
    let n = 0;
    let seen = 0;
    const pay = () => {
      const i = n++;
      const customer = customers[i % customers.length]!;
      return {
        method: 'POST' as const,
        path: `/checkout/${intents[i % intents.length]}/wallet/pay`,
        headers: { cookie: customer.cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: customer.csrf, attempt: `bench-${i}`, lang: 'en' }).toString(),
      };
    };
    // Warm-up payments (JIT, pools, prepared statements), then the measured run on intents not paid yet.
    for (let i = 0; i < 8 * 25; i++) {
      const request = pay();
      seen++;
      await fetch(`${origin}${request.path}`, { method: 'POST', redirect: 'manual', headers: request.headers, body: request.body });
    }
    const pids = new Map(services.map((service) => [service.process.pid!, service.app]));
    // The system's own background (relays, checks, heartbeats) over the same span with no payment, for comparison.
    const idleBefore = cpuSnapshot(pids);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const idle = cpuPerRequest(idleBefore, cpuSnapshot(pids), Math.ceil(rate * seconds));
    const cpuBefore = cpuSnapshot(pids);
    const result = await openLoop({ origin, rate, seconds, connections: 64, preconnect: 8, request: pay, ok: (status) => status === 303 });
    const cpuAfter = cpuSnapshot(pids);
    const paid = await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger.postings WHERE kind = 'payment' AND wallet_id IS NOT NULL AND merchant_id = $1`, [merchant.merchant_id]);
    await pg.end();
    console.log(`bench wallet: ${new Date().toISOString()}; all five services at log level info; this VM's bare HTTP (gateway /health/live, 32 connections, 3 s): ${Math.round(bare.requests.average)} req/s`);
    console.log(
      `  wallet payments (the pay click: session token, sessions' attempt, the ledger's posting, the session's success) at ${rate}/s offered for ${seconds} s over ${walletCount} wallets: p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms  303 answers ${n - seen - result.non2xx - result.errors}  other answers ${result.non2xx}  errors ${result.errors} — goal p99 ≤ 50 ms: ${result.latency.p99 <= 50 ? 'met' : 'NOT met'}`,
    );
    // Includes what each payment sets off after its answer: events relayed and consumed (ledger, refunds, webhooks).
    console.log(`  CPU per payment (every process): ${cpuPerRequest(cpuBefore, cpuAfter, n - seen)}`);
    console.log(`  the same span idle, divided as if it had as many payments: ${idle}`);
    console.log(`  wallet postings written: ${paid.rows[0]!.n} (warm-up ${seen} + measured ${n - seen})`);
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
