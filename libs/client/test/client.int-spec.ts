import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import {
  AuthenticationError,
  ConflictError,
  IdempotencyError,
  InvalidRequestError,
  NotFoundError,
  Payments,
  PermissionError,
  RateLimitError,
  ServiceUnavailableError,
  WebhookSignatureError,
  type PaymentIntent,
} from '../src';
import { freePort, startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// Every client method against the running services (real Postgres, Redis, Kafka), the typed error of each error
// code, a create whose answer is lost and retried into one intent, pages iterated across cursors, and both
// webhook schemes verified as they arrive.
describe('@payments/node against the services', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let client: Payments;
  let db: PgClient;

  const paidIntent = async (amount = '20.00', c = client): Promise<PaymentIntent> => {
    const intent = await c.paymentIntents.create({ amount, currency: 'USD' });
    return c.paymentIntents.simulate(intent.id, { result: 'succeeded', method: 'togo' });
  };
  const failure = (promise: Promise<unknown>) => promise.then(() => Promise.reject(new Error('expected a failure')), (e: unknown) => e);

  beforeAll(async () => {
    stack = await startStack(['ledger', 'sessions', 'refunds', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    client = new Payments({ apiKey: merchant.test_key, baseUrl: stack.gatewayUrl });
    db = new PgClient({ connectionString: stack.db.url });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  describe('payment intents', () => {
    it('create, retrieve, simulate and cancel', async () => {
      const created = await client.paymentIntents.create({ amount: '12.5', currency: 'USD', external_ref: 'order-1', customer: { email: 'a@example.com' } });
      expect(created).toMatchObject({ object: 'payment_intent', status: 'requires_payment_method', amount: '12.50', currency: 'USD', external_ref: 'order-1' });
      expect(created.lastResponse).toMatchObject({ status: 201, attempts: 1, idempotentReplayed: false, requestId: expect.any(String) });
      expect(JSON.stringify(created)).not.toContain('lastResponse');

      expect(await client.paymentIntents.retrieve(created.id)).toEqual(created);
      const paid = await client.paymentIntents.simulate(created.id, { result: 'succeeded' });
      expect(paid).toMatchObject({ id: created.id, status: 'succeeded', paid: true, payment_id: expect.stringMatching(/^\d+$/) });

      const other = await client.paymentIntents.create({ amount: '3.00', currency: 'USD' });
      expect(await client.paymentIntents.cancel(other.id)).toMatchObject({ id: other.id, status: 'cancelled' });
    });

    it('replays a create repeated with the caller\'s Idempotency-Key', async () => {
      const key = `order-${randomUUID()}`;
      const first = await client.paymentIntents.create({ amount: '7.00', currency: 'USD' }, { idempotencyKey: key });
      const again = await client.paymentIntents.create({ amount: '7.00', currency: 'USD' }, { idempotencyKey: key });
      expect(again.id).toBe(first.id);
      expect(again.lastResponse).toMatchObject({ idempotencyKey: key, idempotentReplayed: true });
    });

    it('a create whose answer is lost after the service committed is retried into one intent', async () => {
      const proxy = await AnswerDroppingProxy.start(new URL(stack.gatewayUrl).port);
      try {
        const shop = await stack.createMerchant();
        const viaProxy = new Payments({ apiKey: shop.test_key, baseUrl: `http://127.0.0.1:${proxy.port}`, retryBaseDelayMs: 50 });
        proxy.dropNextAnswer();
        const intent = await viaProxy.paymentIntents.create({ amount: '42.00', currency: 'USD' });
        expect(proxy.dropped).toBe(1);
        expect(intent.lastResponse).toMatchObject({ attempts: 2, idempotentReplayed: true });
        const rows = await db.query('SELECT id FROM sessions.payment_intents WHERE merchant_id = $1', [shop.merchant_id]);
        expect(rows.rows).toEqual([{ id: intent.id }]);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('invoices', () => {
    it('create, retrieve and simulate', async () => {
      const invoice = await client.invoices.create({ amount: '30.00', currency: 'USD', external_ref: 'inv-1', description: 'Order 1' });
      expect(invoice).toMatchObject({ id: expect.stringMatching(/^inv_test_/), status: 'pending', amount: '30.00', fee: '0.00', net: '30.00' });
      expect((await client.invoices.retrieve(invoice.id)).id).toBe(invoice.id);
      expect(await client.invoices.simulate(invoice.id, { result: 'paid' })).toMatchObject({ id: invoice.id, status: 'paid', environment: 'test' });
      expect(await client.invoices.retrieve(invoice.id)).toMatchObject({ status: 'paid', paid_at: expect.any(String) });
    });
  });

  describe('payments, refunds and the balance', () => {
    it('refunds part of a payment, and reads the payment, refund, lists and balance', async () => {
      const paid = await paidIntent('20.00');
      const refund = await client.refunds.create(paid.payment_id!, { amount: '5.00', reason: 'damaged' });
      expect(refund).toMatchObject({ object: 'refund', payment_id: paid.payment_id, amount: '5.00', status: 'completed' });
      expect(await client.refunds.retrieve(refund.id)).toEqual(refund);
      expect(await client.payments.retrieve(paid.payment_id!)).toMatchObject({ id: paid.payment_id, refunded_amount: '5.00', status: 'partially_refunded' });
      expect((await client.refunds.list({ payment_id: paid.payment_id! }).toArray()).map((r) => r.id)).toEqual([refund.id]);
      await waitFor(async () => (await client.payments.list().toArray()).some((p) => p.id === paid.payment_id), 20_000, 'the payment to be listed');

      const balance = await client.balance.retrieve();
      expect(balance).toMatchObject({ object: 'balance', environment: 'test', available: [{ currency: 'USD', amount: expect.stringMatching(/^-?\d+\.\d{2}$/) }] });
      await waitFor(async () => (await client.balanceTransactions.list({ type: 'refund' }).toArray()).length > 0, 20_000, 'the ledger to post the refund');
      const refunds = await client.balanceTransactions.list({ type: 'refund' }).toArray();
      expect(refunds.every((t) => t.type === 'refund' && t.object === 'balance_transaction')).toBe(true);
    });

    it('iterates 250 payments across pages with the cursor', async () => {
      const shop = await stack.createMerchant();
      let pages = 0;
      const counting = new Payments({
        apiKey: shop.test_key,
        baseUrl: stack.gatewayUrl,
        fetch: (input, init) => {
          if (String(input).includes('/api/v1/payments?')) pages++;
          return fetch(input, init);
        },
      });
      const ids = new Set<string>();
      const queue = Array.from({ length: 250 }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) ids.add((await paidIntent(`${1 + (i % 50)}.00`, counting)).payment_id!);
        }),
      );
      expect(ids.size).toBe(250);
      await waitFor(async () => (await counting.payments.list({ limit: 100 }).toArray()).length === 250, 60_000, 'every payment to be listed', 500);

      pages = 0;
      const seen: string[] = [];
      for await (const payment of counting.payments.list({ limit: 100 })) seen.push(payment.id);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(250);
      expect(new Set(seen)).toEqual(ids);
      const first = await counting.payments.list({ limit: 100 });
      expect(first).toMatchObject({ object: 'list', has_more: true });
      expect(first.data).toHaveLength(100);
    }, 180_000);
  });

  describe('webhook endpoints and webhooks', () => {
    let receiver: RawReceiver;

    beforeAll(async () => {
      receiver = await RawReceiver.start();
    });

    afterAll(() => receiver?.close());

    it('manage an endpoint; both signature schemes verify with client.webhooks.verify', async () => {
      const shop = await stack.createMerchant();
      const c = new Payments({ apiKey: shop.test_key, baseUrl: stack.gatewayUrl });
      const endpoint = await c.webhookEndpoints.create({ url: receiver.url });
      expect(endpoint).toMatchObject({ object: 'webhook_endpoint', url: receiver.url, status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
      const secret = endpoint.secret!;
      expect((await c.webhookEndpoints.list()).data.map((e) => e.id)).toEqual([endpoint.id]);
      expect(await c.webhookEndpoints.retrieve(endpoint.id)).toMatchObject({ id: endpoint.id, url: receiver.url });

      // Payment-intent scheme (X-Service-*) and invoice scheme (Service-*), as the service sends them.
      const intent = await paidIntent('9.00', c);
      const invoice = await c.invoices.create({ amount: '11.00', currency: 'USD' });
      await c.invoices.simulate(invoice.id, { result: 'paid' });
      const intentHook = await receiver.next((r) => r.headers['x-service-event'] === 'payment_intent.succeeded');
      const invoiceHook = await receiver.next((r) => r.headers['service-event-id'] !== undefined && JSON.parse(r.raw.toString('utf8')).event === 'invoice.paid');

      const verifiedIntent = c.webhooks.verify(intentHook.raw, intentHook.headers, secret);
      expect(verifiedIntent).toMatchObject({ scheme: 'intent', type: 'payment_intent.succeeded', event: { data: { object: { id: intent.id, status: 'succeeded' } } } });
      const verifiedInvoice = c.webhooks.verify(invoiceHook.raw, invoiceHook.headers, secret);
      expect(verifiedInvoice).toMatchObject({ scheme: 'invoice', type: 'invoice.paid', event: { data: { invoice_id: invoice.id } } });

      const tampered = Buffer.from(invoiceHook.raw.toString('utf8').replace('11.00', '99.00'));
      expect(failureSync(() => c.webhooks.verify(tampered, invoiceHook.headers, secret))).toMatchObject({ code: 'signature_mismatch' });
      expect(failureSync(() => c.webhooks.verify(intentHook.raw, intentHook.headers, 'whsec_wrong'))).toBeInstanceOf(WebhookSignatureError);
      const stale = c.webhooks.verify.bind(null, intentHook.raw, intentHook.headers, secret, { now: () => Date.now() + 301_000 });
      expect(failureSync(stale)).toMatchObject({ code: 'timestamp_out_of_tolerance' });

      // Deliveries: a test event, the list, a resend, a replay of the last minutes.
      const test = await c.webhookEndpoints.sendTestEvent(endpoint.id);
      expect(test).toMatchObject({ object: 'webhook_delivery', endpoint_id: endpoint.id });
      await receiver.next((r) => r.headers['x-service-event'] === test.event_type);
      const deliveries = await c.webhookEndpoints.listDeliveries(endpoint.id).toArray();
      expect(deliveries.map((d) => d.id)).toContain(test.id);
      expect(await c.webhookEndpoints.resendDelivery(endpoint.id, test.id)).toMatchObject({ object: 'webhook_delivery', event_id: test.event_id });
      const to = new Date(Date.now() + 1000).toISOString();
      expect(await c.webhookEndpoints.replay(endpoint.id, { from: new Date(Date.now() - 600_000).toISOString(), to })).toMatchObject({ object: 'webhook_replay', endpoint_id: endpoint.id });

      const rolled = await c.webhookEndpoints.rollSecret(endpoint.id, { expires_in_hours: 1 });
      expect(rolled.secret).toMatch(/^whsec_/);
      expect(rolled.secret).not.toBe(secret);
      expect(await c.webhookEndpoints.enable(endpoint.id)).toMatchObject({ id: endpoint.id, status: 'enabled' });
      const narrowed = await c.webhookEndpoints.update(endpoint.id, { events: ['invoice.paid'] });
      expect(narrowed).toMatchObject({ id: endpoint.id, url: receiver.url, events: ['invoice.paid'] });
      // A PATCH carries a key like a POST, so a retry of it is answered, not applied, again.
      expect(narrowed.lastResponse.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(await c.webhookEndpoints.update(endpoint.id, { events: null })).toMatchObject({ events: null });
      expect(await c.webhookEndpoints.delete(endpoint.id)).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
      expect(await failure(c.webhookEndpoints.retrieve(endpoint.id))).toBeInstanceOf(NotFoundError);
    }, 90_000);

    it('signs test payloads that verify, in either scheme', () => {
      const secret = 'whsec_test_secret';
      const intentEvent = { id: 'evt_1', type: 'payment_intent.succeeded', created: 1, data: { object: { id: 'pi_test_1' } } };
      const signed = client.webhooks.signTestPayload(intentEvent, secret);
      expect(signed.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(client.webhooks.verify(signed.body, signed.headers, secret)).toMatchObject({ scheme: 'intent', id: 'evt_1', event: intentEvent });

      const invoiceEvent = { id: 'evt_2', event: 'invoice.paid', created_at: new Date().toISOString(), data: { invoice_id: 'inv_test_1' } };
      const invoiceSigned = client.webhooks.signTestPayload(invoiceEvent, secret);
      expect(invoiceSigned.headers['service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
      expect(client.webhooks.verify(Buffer.from(invoiceSigned.body), invoiceSigned.headers, [secret, 'whsec_old'])).toMatchObject({ scheme: 'invoice', id: 'evt_2' });
    });
  });

  describe('typed errors, one per code', () => {
    const noRetry = (key: string) => new Payments({ apiKey: key, baseUrl: stack.gatewayUrl, maxRetries: 0 });

    it('400 invalid_request names the field; 400 idempotency_key_required', async () => {
      const invalid = await failure(client.paymentIntents.create({ amount: 'ten', currency: 'USD' }));
      expect(invalid).toBeInstanceOf(InvalidRequestError);
      expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', param: 'amount', requestId: expect.any(String) });
      const keyless = await failure(client.paymentIntents.create({ amount: '1.00', currency: 'USD' }, { idempotencyKey: '' }));
      expect(keyless).toBeInstanceOf(InvalidRequestError);
      expect(keyless).toMatchObject({ status: 400, code: 'idempotency_key_required' });
    });

    it('401 invalid_api_key', async () => {
      const refused = await failure(noRetry('pay_test_nope.nope').balance.retrieve());
      expect(refused).toBeInstanceOf(AuthenticationError);
      expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key', requestId: expect.any(String) });
    });

    it('403 live_mode_not_allowed and account_not_verified', async () => {
      const shop = await stack.createMerchant({ verified: true });
      const live = noRetry(shop.live_key!);
      const intent = await live.paymentIntents.create({ amount: '5.00', currency: 'USD' });
      const simulate = await failure(live.paymentIntents.simulate(intent.id, { result: 'succeeded' }));
      expect(simulate).toBeInstanceOf(PermissionError);
      expect(simulate).toMatchObject({ status: 403, code: 'live_mode_not_allowed' });

      // Verification withdrawn: live keys stop working (within the gateway's cache time).
      await db.query(`UPDATE gateway.merchants SET verification_status = 'pending' WHERE id = $1`, [shop.merchant_id]);
      let refused: unknown;
      await waitFor(async () => (refused = await live.balance.retrieve().catch((e: unknown) => e)) instanceof PermissionError, 10_000, 'live mode to stop', 200);
      expect(refused).toMatchObject({ status: 403, code: 'account_not_verified' });
    });

    it('404 not_found', async () => {
      const missing = await failure(client.paymentIntents.retrieve('pi_test_missing'));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    });

    it('409 idempotency_key_reused', async () => {
      const key = randomUUID();
      await client.paymentIntents.create({ amount: '1.00', currency: 'USD' }, { idempotencyKey: key });
      const reused = await failure(client.paymentIntents.create({ amount: '2.00', currency: 'USD' }, { idempotencyKey: key }));
      expect(reused).toBeInstanceOf(IdempotencyError);
      expect(reused).toMatchObject({ status: 409, code: 'idempotency_key_reused', idempotencyKey: key });
    });

    it('409 invalid_state, refund_exceeds_payment, payment_methods_unavailable', async () => {
      const paid = await paidIntent('4.00');
      const state = await failure(client.paymentIntents.cancel(paid.id));
      expect(state).toBeInstanceOf(ConflictError);
      expect(state).toMatchObject({ status: 409, code: 'invalid_state' });
      const exceeds = await failure(client.refunds.create(paid.payment_id!, { amount: '4.01' }));
      expect(exceeds).toBeInstanceOf(ConflictError);
      expect(exceeds).toMatchObject({ status: 409, code: 'refund_exceeds_payment', param: 'amount' });

      const shop = await stack.createMerchant();
      await stack.admin('merchant', 'methods', '--id', shop.merchant_id, '--methods', 'togo');
      const unavailable = await failure(noRetry(shop.test_key).paymentIntents.create({ amount: '1.00', currency: 'USD', methods: ['crypto'] }));
      expect(unavailable).toBeInstanceOf(ConflictError);
      expect(unavailable).toMatchObject({ status: 409, code: 'payment_methods_unavailable' });
    });

    it('429 rate_limited with the limit headers, when retries are used up', async () => {
      const shop = await stack.createMerchant({ testLimit: 1 });
      const limited = noRetry(shop.test_key);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => failure(limited.balance.retrieve()).catch((ok: unknown) => ok)));
      const refused = outcomes.find((o) => o instanceof RateLimitError) as RateLimitError;
      expect(refused).toBeDefined();
      expect(refused).toMatchObject({ status: 429, code: 'rate_limited', limit: 1, remaining: 0, retryAfter: expect.any(Number) });
      expect(refused.retryAfter).toBeGreaterThan(0);

      // With retries, the client waits out Retry-After and gets through.
      const patient = new Payments({ apiKey: shop.test_key, baseUrl: stack.gatewayUrl, maxRetries: 5 });
      const all = await Promise.all(Array.from({ length: 3 }, () => patient.balance.retrieve()));
      expect(all.every((b) => b.object === 'balance')).toBe(true);
      expect(Math.max(...all.map((b) => b.lastResponse.attempts))).toBeGreaterThan(1);
    });

    it('503 service_unavailable when the owning service does not answer', async () => {
      const alone = await startStack(['gateway'], { SESSIONS_URL: `tcp://127.0.0.1:${await freePort()}` });
      try {
        const shop = await alone.createMerchant();
        const unavailable = await failure(new Payments({ apiKey: shop.test_key, baseUrl: alone.gatewayUrl, maxRetries: 0 }).paymentIntents.create({ amount: '1.00', currency: 'USD' }));
        expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
        expect(unavailable).toMatchObject({ status: 503, code: 'service_unavailable', requestId: expect.any(String) });
      } finally {
        await alone.stop();
      }
    }, 120_000);
  });
});

function failureSync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/**
 * A TCP proxy in front of the gateway that, when told, drops the client's connection as soon as the answer starts
 * to come back: the gateway has committed and answered, the client never sees it.
 */
class AnswerDroppingProxy {
  dropped = 0;
  private drop = false;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: TcpServer,
    readonly port: number,
  ) {}

  static async start(targetPort: string): Promise<AnswerDroppingProxy> {
    let proxy: AnswerDroppingProxy | undefined;
    const server = createTcpServer((client) => proxy!.accept(client, Number(targetPort)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new AnswerDroppingProxy(server, (server.address() as AddressInfo).port);
    return proxy;
  }

  dropNextAnswer(): void {
    this.drop = true;
  }

  private accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (this.drop) {
        this.drop = false;
        this.dropped++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface RawArrival {
  raw: Buffer;
  headers: IncomingHttpHeaders;
}

/** A merchant endpoint that keeps each request's raw body and headers (and answers 200). */
class RawReceiver {
  readonly arrivals: RawArrival[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RawReceiver> {
    let receiver: RawReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver!.arrivals.push({ raw: Buffer.concat(chunks), headers: req.headers });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new RawReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    return receiver;
  }

  async next(match: (arrival: RawArrival) => boolean): Promise<RawArrival> {
    await waitFor(async () => this.arrivals.some(match), 30_000, 'a webhook to arrive', 100);
    return this.arrivals.find(match)!;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
