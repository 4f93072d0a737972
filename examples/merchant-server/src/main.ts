// A merchant's shop server using @payments/node: the customer orders, the shop creates a payment intent (its
// order id as the Idempotency-Key, so a double click or a retry never makes two), redirects the customer to the
// hosted checkout, and marks the order paid when the signed webhook arrives (verified, once per event id).
//
//   PAYMENTS_API_KEY=pay_test_... WEBHOOK_SECRET=whsec_... PORT=4243 SHOP_URL=https://shop.example \
//     node -r ./tools/swc-register.js examples/merchant-server/src/main.ts
//
// Point a webhook endpoint at <this server>/webhooks. SHOP_URL is where the customer comes back to after paying
// (the service accepts https:// addresses only).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Payments, PaymentsError, WebhookSignatureError, type PaymentIntent } from '@payments/node';

const apiKey = process.env.PAYMENTS_API_KEY ?? '';
const secret = process.env.WEBHOOK_SECRET ?? '';
if (!apiKey.startsWith('pay_') || !secret.startsWith('whsec_')) {
  process.stderr.write('Set PAYMENTS_API_KEY (pay_test_… or pay_live_…) and WEBHOOK_SECRET (whsec_…, shown when the webhook endpoint was created).\n');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4243);
const shopUrl = (process.env.SHOP_URL ?? 'https://shop.example').replace(/\/$/, '');
const payments = new Payments({ apiKey, baseUrl: process.env.PAYMENTS_BASE_URL ?? 'http://127.0.0.1:3000' });

interface Order {
  id: string;
  amount: string;
  status: 'awaiting_payment' | 'paid' | 'payment_failed' | 'cancelled';
  intentId?: string;
}

// The shop's own database, in memory here: orders, and the webhook event ids already handled.
const orders = new Map<string, Order>();
const handledEvents = new Set<string>();

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json', ...headers }).end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** POST /orders: the order, its payment intent, and a 303 to the checkout. */
async function checkout(res: ServerResponse): Promise<void> {
  const order: Order = { id: `order_${randomUUID().slice(0, 8)}`, amount: '25.00', status: 'awaiting_payment' };
  orders.set(order.id, order);
  const intent = await payments.paymentIntents.create(
    {
      amount: order.amount,
      currency: 'USD',
      external_ref: order.id,
      description: `Order ${order.id}`,
      success_url: `${shopUrl}/orders/${order.id}`,
      cancel_url: `${shopUrl}/`,
    },
    // One order, one payment: the client keeps this key across its own retries, and so should we.
    { idempotencyKey: order.id },
  );
  order.intentId = intent.id;
  log({ order: order.id, intent: intent.id, checkout_url: intent.checkout_url });
  send(res, 303, '', { location: intent.checkout_url });
}

/** POST /webhooks: verify over the raw body (400 if it does not), then handle each event id once. */
async function webhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  let event;
  try {
    event = payments.webhooks.verify(raw, req.headers, secret);
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) throw error;
    log({ rejected: error.code });
    return send(res, 400, { error: error.code });
  }
  if (!handledEvents.has(event.id)) {
    const intent = (event.event as { data?: { object?: PaymentIntent } }).data?.object;
    const order = intent?.external_ref ? orders.get(intent.external_ref) : undefined;
    if (order) {
      if (event.type === 'payment_intent.succeeded') order.status = 'paid';
      else if (event.type === 'payment_intent.payment_failed') order.status = 'payment_failed';
      else if (event.type === 'payment_intent.cancelled' || event.type === 'payment_intent.expired') order.status = 'cancelled';
    }
    handledEvents.add(event.id);
    log({ received: event.type, event_id: event.id, order: order?.id ?? null, status: order?.status ?? null });
  }
  send(res, 200, { received: true });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://shop');
  const route = `${req.method} ${url.pathname}`;
  const handle = async () => {
    if (route === 'GET /') return send(res, 200, '<!doctype html><title>Shop</title><form method="post" action="/orders"><button>Pay $25.00</button></form>');
    if (route === 'POST /orders') return checkout(res);
    if (route === 'POST /webhooks') return webhook(req, res);
    const order = req.method === 'GET' ? /^\/orders\/([\w-]+)$/.exec(url.pathname) : null;
    if (order && orders.has(order[1]!)) return send(res, 200, orders.get(order[1]!));
    send(res, 404, { error: 'not_found' });
  };
  handle().catch((error: unknown) => {
    // A typed error says what went wrong (code, Request-Id for support); the customer sees a short message.
    log({ failed: route, code: error instanceof PaymentsError ? error.code : 'unexpected', request_id: error instanceof PaymentsError ? error.requestId : null, message: (error as Error).message });
    if (!res.headersSent) send(res, 502, { error: 'payment_unavailable' });
  });
});

server.listen(port, () => log({ listening: `http://localhost:${port}/` }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
