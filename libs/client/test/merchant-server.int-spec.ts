import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, startStack, waitFor, type Stack } from '@payments/testing';
import { Payments } from '../src';

// examples/merchant-server as a shop runs it, against the services: an order redirects to the checkout, the paid
// intent's signed webhook marks the order paid, a forged webhook is refused.
const ROOT = join(__dirname, '..', '..', '..');

describe('examples/merchant-server', () => {
  let stack: Stack;
  let shop: ChildProcess | undefined;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    stack = await startStack(['sessions', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1' });
  }, 120_000);

  afterAll(async () => {
    shop?.kill('SIGTERM');
    await stack?.stop();
  });

  it('creates the intent, redirects to the checkout and marks the order paid on the webhook', async () => {
    const merchant = await stack.createMerchant();
    const payments = new Payments({ apiKey: merchant.test_key, baseUrl: stack.gatewayUrl });
    const port = await freePort();
    const endpoint = await payments.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/webhooks` });
    shop = spawn(process.execPath, ['-r', join(ROOT, 'tools', 'swc-register.js'), join(ROOT, 'examples', 'merchant-server', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PAYMENTS_API_KEY: merchant.test_key, WEBHOOK_SECRET: endpoint.secret!, PORT: String(port), PAYMENTS_BASE_URL: stack.gatewayUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: shop.stdout! }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    await waitFor(() => lines.some((l) => l.listening), 30_000, 'the shop to listen', 100);
    const base = `http://127.0.0.1:${port}`;
    const orderStatus = async (id: unknown) => ((await (await fetch(`${base}/orders/${String(id)}`)).json()) as { status: string }).status;

    const ordered = await fetch(`${base}/orders`, { method: 'POST', redirect: 'manual' });
    expect(ordered.status).toBe(303);
    const created = lines.find((l) => l.intent)!;
    expect(ordered.headers.get('location')).toBe(created.checkout_url);
    expect(created.checkout_url).toMatch(/\/checkout\/pi_test_/);
    const intent = await payments.paymentIntents.retrieve(String(created.intent));
    expect(intent).toMatchObject({ external_ref: created.order, amount: '25.00', status: 'requires_payment_method' });
    expect(await orderStatus(created.order)).toBe('awaiting_payment');

    await payments.paymentIntents.simulate(intent.id, { result: 'succeeded' });
    await waitFor(async () => (await orderStatus(created.order)) === 'paid', 30_000, 'the webhook to mark the order paid', 200);
    expect(lines.find((l) => l.received === 'payment_intent.succeeded')).toMatchObject({ order: created.order, status: 'paid' });

    const forged = payments.webhooks.signTestPayload({ id: 'evt_forged', type: 'payment_intent.succeeded', data: { object: { external_ref: created.order } } }, 'whsec_not_the_secret');
    const refused = await fetch(`${base}/webhooks`, { method: 'POST', headers: forged.headers, body: forged.body });
    expect(refused.status).toBe(400);
  }, 90_000);
});
