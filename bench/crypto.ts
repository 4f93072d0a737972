// Crypto payments on a real local chain: from the moment a customer's stablecoin transfer has the chain's
// configured confirmations to the merchant's signed `payment_intent.succeeded` webhook, received and verified.
// Prints figures beside the goal (p99 ≤ 2 s with one-second blocks); asserts nothing.
//
//   node -r ./tools/swc-register.js bench/crypto.ts [--rate 5] [--seconds 20] [--confirmations 3]
//
// The system is the whole of it as `npm start` runs it (all five services, two instances of each owner, one
// gateway, the chain watcher, info logging) on a fresh database and Kafka namespace, and an anvil node mining a
// block a second with a 6-decimal test token. Each intent gets its deposit address the way a customer gets it (the
// checkout's network and token choice), then its exact amount is sent at `rate` transfers a second. A transfer is
// confirmed when the block `confirmations - 1` above its own is mined; a poller asks the node for its head every
// 20 ms and notes when each block first appears (this process's clock, as the receiver's).
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HDKey } from '@scure/bip32';
import { centsToTokenUnits } from '@payments/chain';
import { callGateway, createTestDatabase, deployTestToken, rpc, sendToken, startAnvil, uniqueName, type RunningService } from '@payments/testing';
import { createWebhookHandler, DEFAULT_TOLERANCE_SECONDS, type VerifiedWebhook } from '@payments/webhook-receiver';
import { admin, bareHttp, numberArg, servicePids, startWholeSystem, stopSystem, wholeSystemLabel } from './bench-support';
import { cpuPerRequest, cpuSnapshot } from './cpu';

const RATE = numberArg('rate', 5);
const SECONDS = numberArg('seconds', 20);
const CONFIRMATIONS = numberArg('confirmations', 3);
const GOAL_P99_MS = 2000;
const AMOUNT_CENTS = 1250n;
const DECIMALS = 6;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
  const anvil = await startAnvil({ blockTimeSeconds: 1 });
  const db = await createTestDatabase('bench_crypto');
  const namespace = uniqueName('bench');
  const services: RunningService[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const receiver = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  let polling = true;
  try {
    const token = await deployTestToken(anvil.rpcUrl, { name: 'Bench USD', symbol: 'BUSD', decimals: DECIMALS });
    const chains = [{ name: 'bench', chain_id: anvil.chainId, rpc_url: anvil.rpcUrl, confirmations: CONFIRMATIONS, tokens: [{ symbol: 'BUSD', address: token, decimals: DECIMALS }] }];
    const xpub = (account: number) => HDKey.fromMasterSeed(randomBytes(32)).derive(`m/44'/60'/${account}'`).publicExtendedKey;
    const common = {
      DATABASE_URL: db.url,
      KAFKA_NAMESPACE: namespace,
      RATE_LIMIT_TEST_PER_SEC: '100000',
      CRYPTO_CHAINS: JSON.stringify(chains),
      CRYPTO_XPUB_TEST: xpub(0),
      CRYPTO_XPUB_LIVE: xpub(1),
    };
    const { origin } = await startWholeSystem(common, services);
    const merchant = await admin(db.url, 'merchant', 'create', '--name', 'Bench Crypto', '--email', `${namespace}@example.com`);
    const key: string = merchant.test_key;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = await callGateway(origin, 'POST', '/api/v1/webhook-endpoints', {
      key,
      body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['payment_intent.succeeded'] },
    });
    if (endpoint.status !== 201) throw new Error(`creating the webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    const received = new Map<string, number>();
    let verifyFailures = 0;
    handler = createWebhookHandler({
      secret: endpoint.body.secret,
      toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
      onEvent: (webhook: VerifiedWebhook) => {
        const id = (webhook.event.data as { object?: { id?: string } }).object?.id;
        if (id && !received.has(id)) received.set(id, performance.now());
      },
      onRejected: (reason) => void (reason === 'signature_mismatch' || reason === 'timestamp_out_of_tolerance' ? verifyFailures++ : undefined),
    });

    // Intents and their deposit addresses, as customers get them on the checkout.
    const total = Math.ceil(RATE * SECONDS);
    const amount = `${AMOUNT_CENTS / 100n}.${String(AMOUNT_CENTS % 100n).padStart(2, '0')}`;
    const intents: Array<{ id: string; address: `0x${string}` }> = [];
    for (let i = 0; i < total; i++) {
      const created = await callGateway(origin, 'POST', '/api/v1/payment-intents', {
        key,
        headers: { 'idempotency-key': randomUUID() },
        body: { amount, currency: 'USD', methods: ['crypto'], success_url: 'https://shop.example/thanks' },
      });
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
      const id: string = created.body.id;
      const chosen = await fetch(`${origin}/checkout/${id}/crypto/address`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ network: String(anvil.chainId), token, attempt: `bench${i}` }).toString(),
      });
      if (chosen.status !== 303) throw new Error(`choosing crypto answered ${chosen.status}`);
      const read = await callGateway(origin, 'GET', `/api/v1/payment-intents/${id}`, { key });
      const address = read.body?.crypto?.address as `0x${string}` | null;
      if (!address) throw new Error(`intent ${id} has no deposit address after the choice: ${JSON.stringify(read.body)}`);
      intents.push({ id, address });
    }

    // When each block first appears, by this process's clock.
    const firstSeen = new Map<bigint, number>();
    const poller = (async () => {
      while (polling) {
        const head = BigInt(await rpc<string>(anvil.rpcUrl, 'eth_blockNumber', []));
        const at = performance.now();
        for (let n = head; n >= 0n && !firstSeen.has(n); n--) firstSeen.set(n, at);
        await sleep(20);
      }
    })();

    const bare = await bareHttp(origin);
    const pids = servicePids(services);
    const cpuBefore = cpuSnapshot(pids);
    const units = centsToTokenUnits(AMOUNT_CENTS, DECIMALS);
    const sent: Array<{ id: string; hash: `0x${string}` }> = [];
    const started = performance.now();
    for (let i = 0; i < intents.length; i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 1) await sleep(wait);
      sent.push({ id: intents[i]!.id, hash: await sendToken(anvil.rpcUrl, token, intents[i]!.address, units, { wait: false }) });
    }
    // Every webhook, or a minute after the last transfer.
    const deadline = performance.now() + 60_000 + CONFIRMATIONS * 1000;
    while (received.size < intents.length && performance.now() < deadline) await sleep(100);
    const cpuAfter = cpuSnapshot(pids);
    polling = false;
    await poller;

    const latencies: number[] = [];
    for (const { id, hash } of sent) {
      const receipt = await rpc<{ blockNumber: string } | null>(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
      const confirmedAt = receipt ? firstSeen.get(BigInt(receipt.blockNumber) + BigInt(CONFIRMATIONS - 1)) : undefined;
      const at = received.get(id);
      if (confirmedAt !== undefined && at !== undefined) latencies.push(at - confirmedAt);
    }
    latencies.sort((a, b) => a - b);
    const f = (n: number) => `${Math.round(n)} ms`;
    const p99 = percentile(latencies, 99);
    console.log(`bench crypto: ${new Date().toISOString()}; ${wholeSystemLabel()} + the chain watcher; anvil, a block a second, ${CONFIRMATIONS} confirmations; this VM's bare HTTP (gateway /health/live): ${bare} req/s`);
    console.log(
      `  transfer confirmed → verified webhook, ${intents.length} transfers at ${RATE}/s: p50 ${f(percentile(latencies, 50))}  p99 ${f(p99)}  max ${f(latencies[latencies.length - 1] ?? NaN)}  webhooks ${received.size} of ${intents.length}  signature failures ${verifyFailures} — goal p99 ≤ ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS && received.size === intents.length ? 'met' : 'NOT met'}`,
    );
    console.log(`  CPU per payment over the run (at a few payments a second the processes' idle work is most of it; the load generator polls the chain every 20 ms): ${cpuPerRequest(cpuBefore, cpuAfter, intents.length)}`);
  } finally {
    polling = false;
    receiver.closeAllConnections();
    receiver.close();
    await stopSystem(services, db, namespace);
    await anvil.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
