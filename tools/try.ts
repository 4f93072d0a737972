// `npm run try`: after `npm start`, from nothing to a verified webhook on screen. Takes the demo merchant's test key,
// starts the example receiver (examples/webhook-receiver) on a free local port, adds it as a webhook endpoint,
// creates a payment intent (or an invoice), simulates the result, prints each step as it happens and the webhook
// as the receiver verified it, then removes the endpoint. Exit 0 when the webhook arrived verified, 1 otherwise
// (the failed step says what to do). `--crypto` pays the intent on the local chain `npm start` runs instead of a
// simulate: the customer's choice of token on the checkout, the deposit address, a real token transfer from the
// chain's funded development account, and the webhook once the chain watcher has counted it at its confirmations.
//   npm run try [-- --invoice] [-- --fail] [-- --crypto] [-- --json]
// Settings: GATEWAY_URL (default http://127.0.0.1:3000), DATABASE_URL (the demo merchant's database, as the
// services'), TRY_API_KEY (a test key to use instead of the demo merchant's), TRY_CHAIN_FILE (--crypto's chain and
// tokens, as scripts/chain.sh writes them; default .cache/chain/chain.json).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { centsToTokenUnits } from '@payments/chain';
import { Payments, PaymentsError, type WithResponse } from '@payments/node';
import { rpc, sendToken } from '@payments/testing';

const root = join(__dirname, '..');
const args = new Set(process.argv.slice(2));
const unknown = [...args].filter((a) => !['--invoice', '--fail', '--crypto', '--json'].includes(a));
const json = args.has('--json');
const invoice = args.has('--invoice');
const fail = args.has('--fail');
const crypto = args.has('--crypto');
const base = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const WEBHOOK_WAIT_MS = 30_000;
const started = Date.now();

/** A step that went wrong: what failed and what to do about it. */
class StepFailed extends Error {
  constructor(
    readonly step: string,
    message: string,
    readonly remedy: string,
  ) {
    super(message);
  }
}

function say(step: string, line: string, fields: Record<string, unknown> = {}): void {
  if (json) process.stdout.write(`${JSON.stringify({ step, ok: true, ...fields })}\n`);
  else process.stdout.write(`try: ${line}\n`);
}

/**
 * One API call through the merchant client (@payments/node: an Idempotency-Key on every POST, safe retries); a
 * failure becomes the step that failed and what to do about it.
 */
async function api<T>(step: string, method: string, path: string, call: () => Promise<WithResponse<T>>): Promise<{ status: number; body: WithResponse<T> }> {
  try {
    const body = await call();
    return { status: body.lastResponse.status, body };
  } catch (error) {
    if (!(error instanceof PaymentsError)) throw error;
    if (error.status === undefined) {
      throw new StepFailed(step, `${method} ${path}: no answer from ${base} (${error.message})`, 'start the services with `npm start`, or set GATEWAY_URL');
    }
    const code = error.code.startsWith('http_') ? '' : error.code;
    throw new StepFailed(step, `${method} ${path} answered ${error.status} ${code}: ${error.message}`.trim(), remedyFor(step, error.status, code || undefined));
  }
}

function remedyFor(step: string, status: number, code?: string): string {
  if (status === 401) return 'the key was refused: run `npm start` again to create the demo merchant, or set TRY_API_KEY to a test key';
  if (status === 503) return 'a service is not answering: check `npm start` and the logs in .cache/run/';
  if (step === 'endpoint' && code === 'invalid_request') {
    return 'local webhook targets are refused: start the services with WEBHOOK_ALLOW_INSECURE_TARGETS=1 (`npm start` sets it outside production)';
  }
  return 'see the message above; the API reference is at ' + `${base}/docs`;
}

/** The demo merchant's test key, from the admin CLI `npm start` uses (it makes the merchant if there is none). */
function demoKey(): Promise<{ key: string; merchantId: string | null }> {
  if (process.env.TRY_API_KEY) return Promise.resolve({ key: process.env.TRY_API_KEY, merchantId: null });
  const cli = join(root, 'dist', 'apps', 'gateway', 'src', 'admin', 'cli.js');
  if (!existsSync(cli)) return Promise.reject(new StepFailed('demo', 'the admin CLI is not built', 'run `npm start` (it builds) first'));
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [cli, 'demo', '--json'], { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn' } }, (error, stdout, stderr) => {
      try {
        const demo = JSON.parse(stdout) as { test_key?: string; merchant_id?: string };
        if (!demo.test_key) throw new Error(stderr || 'no test_key');
        resolve({ key: demo.test_key, merchantId: demo.merchant_id ?? null });
      } catch {
        reject(new StepFailed('demo', `the demo merchant could not be made: ${(stderr || error?.message || stdout).trim().split('\n')[0]}`, 'is PostgreSQL running (`npm start`)? set DATABASE_URL as for the services'));
      }
    }),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface ReceiverLine {
  listening?: string;
  received?: string;
  event_id?: string;
  scheme?: string;
  object?: string;
  status?: string;
  rejected?: string;
  detail?: string;
  at: number;
}

/** The example receiver as its own process; its JSON log lines, as they come. */
function startReceiver(port: number, secret: string): { child: ChildProcess; next: (accept: (line: ReceiverLine) => boolean, ms: number) => Promise<ReceiverLine | null> } {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'swc-register.js'), join(root, 'examples', 'webhook-receiver', 'src', 'main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: ReceiverLine[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push({ ...(JSON.parse(text) as ReceiverLine), at: Date.now() });
    } catch {
      return;
    }
    for (const wake of waiters) wake();
  });
  const next = (accept: (line: ReceiverLine) => boolean, ms: number) =>
    new Promise<ReceiverLine | null>((resolve) => {
      const check = () => {
        const found = lines.find(accept);
        if (found) finish(found);
      };
      const finish = (value: ReceiverLine | null) => {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => finish(null), ms);
      waiters.add(check);
      check();
    });
  return { child, next };
}

async function main(): Promise<number> {
  if (unknown.length > 0) throw new StepFailed('options', `unknown option ${unknown.join(' ')}`, 'use --invoice, --fail, --crypto and --json');
  if (crypto && (invoice || fail)) throw new StepFailed('options', '--crypto pays a payment intent', 'use --crypto alone (with --json if wanted)');
  let receiver: ChildProcess | undefined;
  let endpoint: { id: string; payments: Payments } | undefined;
  try {
    const health = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
    if (!health?.ok) throw new StepFailed('services', `the gateway at ${base} is not ready`, 'start the services with `npm start` (or set GATEWAY_URL)');
    say('services', `gateway ${base} is ready`, { gateway: base });

    const demo = await demoKey();
    say('demo', `demo merchant ${demo.merchantId ?? '(TRY_API_KEY)'}, test key ${demo.key.slice(0, 14)}…`, { merchant_id: demo.merchantId });

    const port = await freePort();
    const surface = invoice ? 'invoice' : 'payment_intent';
    const expected = invoice ? (fail ? 'invoice.payment_failed' : 'invoice.paid') : fail ? 'payment_intent.payment_failed' : 'payment_intent.succeeded';
    const url = `http://127.0.0.1:${port}/webhooks`;
    const payments = new Payments({ apiKey: demo.key, baseUrl: base, timeoutMs: 10_000 });
    const created = await api('endpoint', 'POST', '/api/v1/webhook-endpoints', () => payments.webhookEndpoints.create({ url, events: [expected] }));
    endpoint = { id: created.body.id, payments };
    say('endpoint', `POST /api/v1/webhook-endpoints → ${created.status} ${created.body.id} for ${url} (a local target: allowed by the development setting WEBHOOK_ALLOW_INSECURE_TARGETS)`, {
      status: created.status,
      id: created.body.id,
      url,
    });

    const rx = startReceiver(port, created.body.secret ?? '');
    receiver = rx.child;
    if (!(await rx.next((l) => l.listening !== undefined, 20_000))) {
      throw new StepFailed('receiver', 'the example receiver did not start', 'run `npm start` first (it installs packages); try `node -r ./tools/swc-register.js examples/webhook-receiver/src/main.ts`');
    }
    say('receiver', `example receiver (examples/webhook-receiver) listening on ${url}`, { url });

    const path = invoice ? '/api/v1/invoices' : '/api/v1/payment-intents';
    const params = { amount: '25.00', currency: 'USD' as const, description: 'npm run try', ...(crypto ? { methods: ['crypto' as const] } : {}) };
    const session = await api<{ id: string; status: string; checkout_url: string }>('create', 'POST', path, () =>
      invoice ? payments.invoices.create(params) : payments.paymentIntents.create(params),
    );
    say('create', `POST ${path} → ${session.status} ${session.body.id} (${session.body.status})`, { status: session.status, id: session.body.id, object: surface });
    say('checkout', `checkout URL: ${session.body.checkout_url}`, { checkout_url: session.body.checkout_url });

    if (crypto) {
      await payInCrypto(session.body.id, payments, (paidAt) => (simulatedAt = paidAt));
    } else {
      await simulate(session.body.id, path, payments);
    }

    const arrival = await rx.next((l) => (l.received === expected && l.object === session.body.id) || l.rejected !== undefined, WEBHOOK_WAIT_MS);
    if (!arrival) {
      throw new StepFailed('webhook', `no ${expected} webhook within ${WEBHOOK_WAIT_MS / 1000} s`, crypto ? 'is the chain watcher running? see .cache/run/chain-watcher.log' : 'is the webhook-dispatcher running? see .cache/run/webhook-dispatcher.log');
    }
    if (arrival.rejected) throw new StepFailed('webhook', `the receiver refused a webhook: ${arrival.rejected} ${arrival.detail ?? ''}`, 'the endpoint secret and the receiver disagree; see examples/webhook-receiver/README.md');
    const latency = arrival.at - simulatedAt;
    const header = arrival.scheme === 'invoice' ? 'Service-Signature' : 'X-Service-Signature';
    say('webhook', `webhook ${arrival.received} ${arrival.event_id} for ${arrival.object}: signature verified (${header}), ${latency} ms after ${crypto ? 'the transfer was mined' : 'simulate'}`, {
      type: arrival.received,
      event_id: arrival.event_id,
      object: arrival.object,
      signature_verified: true,
      scheme: arrival.scheme,
      latency_ms: latency,
    });
  } finally {
    receiver?.kill('SIGTERM');
    if (endpoint) {
      const { id, payments } = endpoint;
      const removed = await api('cleanup', 'DELETE', `/api/v1/webhook-endpoints/${id}`, () => payments.webhookEndpoints.delete(id)).catch(() => null);
      if (removed) say('cleanup', `DELETE /api/v1/webhook-endpoints/${endpoint.id} → ${removed.status}`, { status: removed.status, id: endpoint.id });
    }
  }
  say('done', `done in ${((Date.now() - started) / 1000).toFixed(1)} s`, { seconds: (Date.now() - started) / 1000 });
  return 0;
}

/** When the payment was made: the simulate sent, or the customer's transfer mined. */
let simulatedAt = Date.now();

async function simulate(id: string, path: string, payments: Payments): Promise<void> {
  const result = invoice ? (fail ? 'failed' : 'paid') : fail ? 'failed' : 'succeeded';
  simulatedAt = Date.now();
  const simulated = await api<{ status: string }>('simulate', 'POST', `${path}/${id}/simulate`, () =>
    invoice ? payments.invoices.simulate(id, { result: fail ? 'failed' : 'paid' }) : payments.paymentIntents.simulate(id, { result: fail ? 'failed' : 'succeeded' }),
  );
  say('simulate', `POST ${path}/${id}/simulate {"result":"${result}"} → ${simulated.status} ${simulated.body.status}`, { status: simulated.status, id, result: simulated.body.status });
}

interface LocalChain {
  rpc_url: string;
  chain_id: number;
  tokens: Array<{ symbol: string; address: `0x${string}`; decimals: number }>;
}

/**
 * The customer's side of a crypto payment on the local chain `npm start` runs (.cache/chain/chain.json): the token
 * chosen on the checkout, the intent's deposit address, and the amount sent from the chain's funded development
 * account. Calls `mined` with the time the transfer was mined.
 */
async function payInCrypto(id: string, payments: Payments, mined: (at: number) => void): Promise<void> {
  const file = process.env.TRY_CHAIN_FILE ?? join(root, '.cache', 'chain', 'chain.json');
  if (!existsSync(file)) throw new StepFailed('chain', 'no local chain: .cache/chain/chain.json is missing', 'run `npm start` (it starts a local chain with test tokens)');
  const chain = JSON.parse(readFileSync(file, 'utf8')) as LocalChain;
  const token = chain.tokens[0]!;
  const chainId = await rpc<string>(chain.rpc_url, 'eth_chainId', []).catch(() => null);
  if (chainId === null) throw new StepFailed('chain', `the local chain at ${chain.rpc_url} does not answer`, 'run `npm start` (it starts the chain), or `bash scripts/chain.sh start`');

  const chose = await fetch(`${base}/checkout/${id}/crypto/address`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ network: String(chain.chain_id), token: token.address, attempt: randomBytes(8).toString('hex') }).toString(),
    redirect: 'manual',
  });
  const deposit = chose.headers.get('location') ?? '';
  if (chose.status !== 303 || !deposit.includes('/crypto?')) {
    throw new StepFailed('address', `the checkout did not give a deposit address (${chose.status} → ${deposit || 'no page'})`, 'are the services started with the local chain (`npm start` prints "Crypto chain")? see .cache/run/sessions.log');
  }
  const intent = await api('address', 'GET', `/api/v1/payment-intents/${id}`, () => payments.paymentIntents.retrieve(id));
  const address = intent.body.crypto.address as `0x${string}` | null;
  if (!address) throw new StepFailed('address', `intent ${id} has no deposit address`, 'see .cache/run/sessions.log');
  say('address', `the customer chose ${token.symbol} on chain ${chain.chain_id} at ${base}${deposit}: deposit address ${address}`, { address, token: token.address, chain_id: chain.chain_id });

  const [whole, cents] = intent.body.amount.split('.') as [string, string];
  const units = centsToTokenUnits(BigInt(whole) * 100n + BigInt(cents), token.decimals);
  const hash = await sendToken(chain.rpc_url, token.address, address, units);
  mined(Date.now());
  say('transfer', `sent ${intent.body.amount} ${token.symbol} (${units} units) to ${address}: transaction ${hash}, mined; the chain watcher counts it at its confirmations`, { tx: hash, units: String(units) });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const failed = error instanceof StepFailed ? error : new StepFailed('unexpected', (error as Error).message, 'please report this with the output above');
    if (json) process.stdout.write(`${JSON.stringify({ step: failed.step, ok: false, error: failed.message, remedy: failed.remedy })}\n`);
    else process.stderr.write(`try: FAILED at step "${failed.step}": ${failed.message}\ntry: what to do: ${failed.remedy}\n`);
    process.exit(1);
  },
);
