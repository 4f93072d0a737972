// `npm run try`: after `npm start`, from nothing to a verified webhook on screen. Takes the demo merchant's test key,
// starts the example receiver (examples/webhook-receiver) on a free local port, adds it as a webhook endpoint,
// creates a payment intent (or an invoice), simulates the result, prints each step as it happens and the webhook
// as the receiver verified it, then removes the endpoint. Exit 0 when the webhook arrived verified, 1 otherwise
// (the failed step says what to do).
//   npm run try [-- --invoice] [-- --fail] [-- --json]
// Settings: GATEWAY_URL (default http://127.0.0.1:3000), DATABASE_URL (the demo merchant's database, as the
// services'), TRY_API_KEY (a test key to use instead of the demo merchant's).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Payments, PaymentsError, type WithResponse } from '@payments/node';

const root = join(__dirname, '..');
const args = new Set(process.argv.slice(2));
const unknown = [...args].filter((a) => !['--invoice', '--fail', '--json'].includes(a));
const json = args.has('--json');
const invoice = args.has('--invoice');
const fail = args.has('--fail');
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
  if (unknown.length > 0) throw new StepFailed('options', `unknown option ${unknown.join(' ')}`, 'use --invoice, --fail and --json');
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
    const params = { amount: '25.00', currency: 'USD', description: 'npm run try' } as const;
    const session = await api<{ id: string; status: string; checkout_url: string }>('create', 'POST', path, () =>
      invoice ? payments.invoices.create(params) : payments.paymentIntents.create(params),
    );
    say('create', `POST ${path} → ${session.status} ${session.body.id} (${session.body.status})`, { status: session.status, id: session.body.id, object: surface });
    say('checkout', `checkout URL: ${session.body.checkout_url}`, { checkout_url: session.body.checkout_url });

    const result = invoice ? (fail ? 'failed' : 'paid') : fail ? 'failed' : 'succeeded';
    const simulatedAt = Date.now();
    const simulated = await api<{ status: string }>('simulate', 'POST', `${path}/${session.body.id}/simulate`, () =>
      invoice ? payments.invoices.simulate(session.body.id, { result: fail ? 'failed' : 'paid' }) : payments.paymentIntents.simulate(session.body.id, { result: fail ? 'failed' : 'succeeded' }),
    );
    const object = simulated.body;
    say('simulate', `POST ${path}/${session.body.id}/simulate {"result":"${result}"} → ${simulated.status} ${object.status}`, { status: simulated.status, id: session.body.id, result: object.status });

    const arrival = await rx.next((l) => (l.received === expected && l.object === session.body.id) || l.rejected !== undefined, WEBHOOK_WAIT_MS);
    if (!arrival) {
      throw new StepFailed('webhook', `no ${expected} webhook within ${WEBHOOK_WAIT_MS / 1000} s`, 'is the webhook-dispatcher running? see .cache/run/webhook-dispatcher.log');
    }
    if (arrival.rejected) throw new StepFailed('webhook', `the receiver refused a webhook: ${arrival.rejected} ${arrival.detail ?? ''}`, 'the endpoint secret and the receiver disagree; see examples/webhook-receiver/README.md');
    const latency = arrival.at - simulatedAt;
    const header = arrival.scheme === 'invoice' ? 'Service-Signature' : 'X-Service-Signature';
    say('webhook', `webhook ${arrival.received} ${arrival.event_id} for ${arrival.object}: signature verified (${header}), ${latency} ms after simulate`, {
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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const failed = error instanceof StepFailed ? error : new StepFailed('unexpected', (error as Error).message, 'please report this with the output above');
    if (json) process.stdout.write(`${JSON.stringify({ step: failed.step, ok: false, error: failed.message, remedy: failed.remedy })}\n`);
    else process.stderr.write(`try: FAILED at step "${failed.step}": ${failed.message}\ntry: what to do: ${failed.remedy}\n`);
    process.exit(1);
  },
);
