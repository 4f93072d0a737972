import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { REFUNDS_SERVICE, SESSIONS_SERVICE, WEBHOOKS_SERVICE, type InvoiceResource, type PaymentIntentResource } from '@payments/contracts';
import { ApiError, CommandClient, ServiceClient, type CommandOptions } from '@payments/platform';
import { startStack, TestWebhookReceiver, uniqueName, waitFor, type Stack, type TestMerchant } from '@payments/testing';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { parseListQuery } from '../src/dashboard/filters/list-query';
import { RefundsClient } from '../src/refunds/refunds.client';
import { ResourceCache } from '../src/resource-cache/resource-cache';
import { SessionsClient } from '../src/sessions-client/sessions.client';
import { WebhooksClient } from '../src/webhook-endpoints/webhooks.client';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The dashboard's operations lists through the gateway's own clients, against the real services: each filter
// narrows as it says, paging walks everything once, another merchant's or environment's ids never show, bad
// filters are refused by the owner, and the API's lists answer as they did.
describe('operations lists (dashboard data)', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let commands: CommandClient;
  let redis: Redis;
  let sessions: SessionsClient;
  let refunds: RefundsClient;
  let webhooks: WebhooksClient;
  const receiver = new TestWebhookReceiver();
  const caller = (): CommandOptions => ({ correlationId: uniqueName('req') });
  const scope = () => ({ merchant_id: merchant.merchant_id, environment: 'test' as const });

  const post = async (path: string, body: object, key = merchant.test_key) => {
    const res = await stack.call('POST', path, { key, body, headers: { 'Idempotency-Key': randomUUID() } });
    expect(res.status).toBeLessThan(300);
    return res.body;
  };

  // Made in this order, so newest first is the reverse.
  const intents: PaymentIntentResource[] = [];
  const invoices: InvoiceResource[] = [];
  let foreignIntent: PaymentIntentResource;
  let foreignInvoice: InvoiceResource;
  const paymentOf = new Map<string, string>(); // intent id -> payment id

  async function refusal(promise: Promise<unknown>): Promise<ApiError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  beforeAll(async () => {
    const receiverUrl = await receiver.listen();
    stack = await startStack(['sessions', 'refunds', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    other = await stack.createMerchant();
    const endpoint = await post('/api/v1/webhook-endpoints', { url: receiverUrl });
    receiver.secret = endpoint.secret;

    commands = new CommandClient({
      upstreams: {
        [SESSIONS_SERVICE]: [stack.services.sessions!.commandUrl!],
        [REFUNDS_SERVICE]: [stack.services.refunds!.commandUrl!],
        [WEBHOOKS_SERVICE]: [stack.services['webhook-dispatcher']!.commandUrl!],
      },
      secrets: [DEVELOPMENT_COMMAND_SECRET],
    });
    const service = new ServiceClient(commands, 20_000);
    redis = new Redis(REDIS_URL);
    sessions = new SessionsClient(service, new ResourceCache(redis, uniqueName('cache'), 60));
    refunds = new RefundsClient(service);
    webhooks = new WebhooksClient(service);

    // Intents: amounts, references and outcomes that each filter tells apart.
    const plan: Array<{ amount: string; ref?: string; outcome?: 'succeeded' | 'failed' | 'cancel' }> = [
      { amount: '10.00', ref: 'ord-a', outcome: 'succeeded' },
      { amount: '20.00', ref: 'ord-b' },
      { amount: '30.00', ref: 'ord-c', outcome: 'succeeded' },
      { amount: '20.00', ref: 'ord-d', outcome: 'failed' },
      { amount: '45.50', outcome: 'cancel' },
      { amount: '20.00', ref: 'ord-f', outcome: 'succeeded' },
      { amount: '99.99', ref: 'ord-a' },
    ];
    for (const step of plan) {
      const created = await post('/api/v1/payment-intents', { amount: step.amount, currency: 'USD', ...(step.ref ? { external_ref: step.ref } : {}) });
      if (step.outcome === 'succeeded' || step.outcome === 'failed') {
        const done = await post(`/api/v1/payment-intents/${created.id}/simulate`, { result: step.outcome, method: 'togo' });
        if (step.outcome === 'succeeded') paymentOf.set(created.id, done.payment_id);
      }
      if (step.outcome === 'cancel') await post(`/api/v1/payment-intents/${created.id}/cancel`, {});
      intents.push((await stack.call('GET', `/api/v1/payment-intents/${created.id}`, { key: merchant.test_key })).body);
    }
    for (const [amount, result] of [['15.00', 'paid'], ['25.00', undefined], ['35.00', 'expired'], ['15.00', 'failed']] as const) {
      const created = await post('/api/v1/invoices', { amount, currency: 'USD', external_ref: `inv-${amount}` });
      if (result) await post(`/api/v1/invoices/${created.id}/simulate`, { result });
      invoices.push((await stack.call('GET', `/api/v1/invoices/${created.id}`, { key: merchant.test_key })).body);
    }
    foreignIntent = await post('/api/v1/payment-intents', { amount: '20.00', currency: 'USD', external_ref: 'ord-b' }, other.test_key);
    foreignInvoice = await post('/api/v1/invoices', { amount: '15.00', currency: 'USD' }, other.test_key);
    const foreignPaid = await post(`/api/v1/payment-intents/${foreignIntent.id}/simulate`, { result: 'succeeded', method: 'togo' }, other.test_key);
    paymentOf.set(foreignIntent.id, foreignPaid.payment_id);
    // Every payment reaches the refunds service by its event.
    await waitFor(async () => (await refunds.listPayments({ ...scope(), limit: 100 }, caller())).data.length === 4, 30_000, 'the payments to reach refunds');
  }, 180_000);

  afterAll(async () => {
    await commands?.close();
    redis?.disconnect();
    await stack?.stop();
    await receiver.close();
  });

  const newestFirst = <T extends { id: string }>(items: T[]) => [...items].reverse().map((item) => item.id);
  const ids = (list: { data: Array<{ id: string }> }) => list.data.map((item) => item.id);

  describe('payment intents', () => {
    const list = (filter: object = {}) => sessions.listPaymentIntents({ ...scope(), limit: 100, ...filter }, caller());

    it('lists every intent of the scope newest first, as GET shows it', async () => {
      const page = await list();
      expect(page).toEqual({ object: 'list', data: [...intents].reverse(), has_more: false });
    });

    it('each filter narrows to exactly what it names', async () => {
      expect(ids(await list({ status: 'succeeded' }))).toEqual(newestFirst(intents.filter((i) => i.status === 'succeeded')));
      expect(ids(await list({ status: 'cancelled' }))).toEqual([intents[4]!.id]);
      expect(ids(await list({ status: 'requires_payment_method' }))).toEqual([intents[6]!.id, intents[1]!.id]);
      expect(ids(await list({ external_ref: 'ord-a' }))).toEqual([intents[6]!.id, intents[0]!.id]);
      expect(ids(await list({ amount: '20.00' }))).toEqual([intents[5]!.id, intents[3]!.id, intents[1]!.id]);
      expect(ids(await list({ amount_gte: '20.00', amount_lte: '45.50' }))).toEqual(newestFirst(intents.slice(1, 6)));
      expect(ids(await list({ amount: '20.00', status: 'succeeded' }))).toEqual([intents[5]!.id]);
      expect(ids(await list({ created_gte: intents[2]!.created_at, created_lt: intents[5]!.created_at }))).toEqual(newestFirst(intents.slice(2, 5)));
      expect(ids(await list({ external_ref: 'nothing-like-it' }))).toEqual([]);
    });

    it('paging walks every intent exactly once, newest first', async () => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await list({ limit: 2, ...(after ? { starting_after: after } : {}) });
        seen.push(...ids(page));
        if (!page.has_more) break;
        after = page.data.at(-1)!.id;
      }
      expect(seen).toEqual(newestFirst(intents));
      // A filtered walk too.
      const first = await list({ limit: 1, amount: '20.00' });
      const second = await list({ limit: 5, amount: '20.00', starting_after: first.data[0]!.id });
      expect([...ids(first), ...ids(second)]).toEqual([intents[5]!.id, intents[3]!.id, intents[1]!.id]);
      expect(first.has_more).toBe(true);
      expect(second.has_more).toBe(false);
    });

    it("never shows another merchant's or environment's intents, nor pages from their ids", async () => {
      expect(ids(await list({ external_ref: 'ord-b' }))).toEqual([intents[1]!.id]);
      expect((await sessions.listPaymentIntents({ ...scope(), environment: 'live', limit: 100 }, caller())).data).toEqual([]);
      for (const command of [
        { ...scope(), limit: 10, starting_after: foreignIntent.id },
        { ...scope(), environment: 'live' as const, limit: 10, starting_after: intents[0]!.id },
      ]) {
        const error = await refusal(sessions.listPaymentIntents(command, caller()));
        expect(error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
        expect(error.message).not.toContain(other.merchant_id);
      }
    });

    it('lists a session past expires_at that the expiry job has not reached under expired, as GET shows it', async () => {
      const lapsing = await post('/api/v1/payment-intents', { amount: '7.00', currency: 'USD', external_ref: 'lapsing' });
      // Time passing for this one row: its read model says it expired a second ago, its stored status does not.
      const db = new Client({ connectionString: stack.db.url });
      await db.connect();
      try {
        await db.query(
          `UPDATE sessions.payment_intents SET expires_at = now() - interval '1 second',
             resource = jsonb_set(resource, '{expires_at}', to_jsonb(to_char((now() - interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
           WHERE id = $1`,
          [lapsing.id],
        );
      } finally {
        await db.end();
      }
      const expired = await list({ status: 'expired', external_ref: 'lapsing' });
      expect(expired.data.map((i) => [i.id, i.status])).toEqual([[lapsing.id, 'expired']]);
      expect((await list({ status: 'requires_payment_method', external_ref: 'lapsing' })).data).toEqual([]);
      expect((await list({ external_ref: 'lapsing' })).data[0]!.status).toBe('expired');
    });

    it('refuses bad filters with invalid_request naming the field', async () => {
      const bad: Array<[object, string]> = [
        [{ status: 'paid' }, 'status'],
        [{ amount: '20.00', amount_gte: '1.00' }, 'amount'],
        [{ amount_gte: '30.00', amount_lte: '20.00' }, 'amount_gte'],
        [{ amount: '1.234' }, 'amount'],
        [{ created_gte: 'yesterday' }, 'created_gte'],
        [{ created_gte: '2026-11-02T00:00:00Z', created_lt: '2026-11-01T00:00:00Z' }, 'created_lt'],
        [{ limit: 0 }, 'limit'],
        [{ limit: 101 }, 'limit'],
        [{ colour: 'red' }, 'colour'],
        [{ starting_after: 'inv_abc' }, 'starting_after'],
      ];
      for (const [filter, param] of bad) {
        const error = await refusal(list(filter));
        expect({ filter, code: error.code, param: error.param }).toEqual({ filter, code: 'invalid_request', param });
      }
    });

    it("gives the timeline of an intent with its sequence; another merchant's or environment's is not found", async () => {
      const paid = intents[0]!;
      const timeline = await sessions.listSessionEvents({ ...scope(), id: paid.id }, caller());
      expect(timeline.object).toBe('list');
      expect(timeline.data.map((e) => e.sequence)).toEqual(timeline.data.map((_, i) => i + 1));
      expect(timeline.data[0]).toMatchObject({ object: 'session_event', sequence: 1, type: 'payment_intent.created', name: 'PaymentIntentCreated' });
      expect(timeline.data.map((e) => e.type)).toContain('payment_intent.succeeded');
      for (const event of timeline.data) expect(Date.parse(event.occurred_at)).not.toBeNaN();

      for (const command of [
        { ...scope(), id: foreignIntent.id },
        { ...scope(), environment: 'live' as const, id: paid.id },
        { ...scope(), id: 'pi_test_doesnotexist' },
      ]) {
        expect(await refusal(sessions.listSessionEvents(command, caller()))).toMatchObject({ code: 'not_found' });
      }
    });
  });

  describe('invoices', () => {
    const list = (filter: object = {}) => sessions.listInvoices({ ...scope(), limit: 100, ...filter }, caller());

    it('filters by status (expired included), amount, reference and time; pages; stays in scope', async () => {
      expect(await list()).toEqual({ object: 'list', data: [...invoices].reverse(), has_more: false });
      expect(ids(await list({ status: 'paid' }))).toEqual([invoices[0]!.id]);
      expect(ids(await list({ status: 'expired' }))).toEqual([invoices[2]!.id]);
      expect(ids(await list({ status: 'pending' }))).toEqual([invoices[1]!.id]);
      expect(ids(await list({ amount: '15.00' }))).toEqual([invoices[3]!.id, invoices[0]!.id]);
      expect(ids(await list({ external_ref: 'inv-25.00' }))).toEqual([invoices[1]!.id]);
      expect(ids(await list({ created_lt: invoices[1]!.created_at }))).toEqual([invoices[0]!.id]);
      const first = await list({ limit: 3 });
      const rest = await list({ limit: 3, starting_after: first.data.at(-1)!.id });
      expect([...ids(first), ...ids(rest)]).toEqual(newestFirst(invoices));
      expect(await refusal(list({ starting_after: foreignInvoice.id }))).toMatchObject({ code: 'invalid_request' });
      expect(await refusal(list({ status: 'succeeded' }))).toMatchObject({ code: 'invalid_request', param: 'status' });
      const timeline = await sessions.listSessionEvents({ ...scope(), id: invoices[0]!.id }, caller());
      expect(timeline.data.map((e) => e.type)).toEqual(expect.arrayContaining(['invoice.created', 'invoice.paid']));
      expect(await refusal(sessions.listSessionEvents({ ...scope(), id: foreignInvoice.id }, caller()))).toMatchObject({ code: 'not_found' });
    });
  });

  describe('payments and refunds', () => {
    const list = (filter: object = {}) => refunds.listPayments({ ...scope(), limit: 100, ...filter }, caller());
    const paid = () => intents.filter((i) => paymentOf.has(i.id)).reverse(); // newest first
    let partial: { id: string; payment_id: string };
    let full: { id: string; payment_id: string };

    beforeAll(async () => {
      const [newest, middle] = paid();
      partial = await post(`/api/v1/payments/${paymentOf.get(newest!.id)}/refunds`, { amount: '5.00' });
      full = await post(`/api/v1/payments/${paymentOf.get(middle!.id)}/refunds`, {});
    });

    it('filters payments by status, amount, the intent\'s external_ref and paid time; pages once through all', async () => {
      const all = await list();
      // The paid invoice's payment is the newest (invoices were paid after the intents).
      expect(all.data.map((p) => p.source)).toEqual([invoices[0]!.id, ...paid().map((i) => i.id)]);
      expect(all.data.map((p) => p.id)).not.toContain(paymentOf.get(foreignIntent.id));
      expect(ids(await list({ status: 'partially_refunded' }))).toEqual([partial.payment_id]);
      expect(ids(await list({ status: 'refunded' }))).toEqual([full.payment_id]);
      expect((await list({ status: 'succeeded' })).data.map((p) => p.source)).toEqual([invoices[0]!.id, intents[0]!.id]);
      expect((await list({ amount: '20.00' })).data.map((p) => p.source)).toEqual([intents[5]!.id]);
      expect((await list({ amount_gte: '25.00' })).data.map((p) => p.source)).toEqual([intents[2]!.id]);
      expect((await list({ external_ref: 'ord-a' })).data.map((p) => p.source)).toEqual([intents[0]!.id]);
      expect((await list({ external_ref: 'ord-b' })).data).toEqual([]);
      const oldest = all.data.at(-1)!;
      expect(ids(await list({ created_lt: all.data[1]!.created_at }))).toEqual(ids(all).slice(2));
      expect(ids(await list({ created_gte: all.data[1]!.created_at }))).toEqual(ids(all).slice(0, 2));
      const walked: string[] = [];
      let after: string | undefined;
      do {
        const page = await list({ limit: 1, ...(after ? { starting_after: after } : {}) });
        walked.push(...ids(page));
        after = page.has_more ? page.data[0]!.id : undefined;
      } while (after);
      expect(walked).toEqual(ids(all));
      expect(walked.at(-1)).toBe(oldest.id);
    });

    it("refuses another merchant's or environment's payment as a cursor, and bad filters", async () => {
      const foreign = paymentOf.get(foreignIntent.id)!;
      expect(await refusal(list({ starting_after: foreign }))).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
      expect(await refusal(refunds.listPayments({ ...scope(), environment: 'live', limit: 10, starting_after: paymentOf.get(intents[0]!.id)! }, caller()))).toMatchObject({
        code: 'invalid_request',
      });
      expect(await refusal(refunds.getPayment({ ...scope(), id: foreign }, caller()))).toMatchObject({ code: 'not_found' });
      for (const [filter, param] of [
        [{ status: 'pending' }, 'status'],
        [{ amount: '5.00', amount_lte: '9.00' }, 'amount'],
        [{ created_gte: 'soon' }, 'created_gte'],
        [{ payment_id: '1' }, 'payment_id'],
      ] as const) {
        expect(await refusal(list(filter))).toMatchObject({ code: 'invalid_request', param });
      }
    });

    it('filters refunds by status, payment, amount and time', async () => {
      const listRefunds = (filter: object = {}) => refunds.listRefunds({ ...scope(), limit: 100, ...filter }, caller());
      expect(ids(await listRefunds())).toEqual([full.id, partial.id]);
      expect(ids(await listRefunds({ payment_id: partial.payment_id }))).toEqual([partial.id]);
      expect(ids(await listRefunds({ amount: '5.00' }))).toEqual([partial.id]);
      expect(ids(await listRefunds({ status: 'completed', amount_gte: '6.00' }))).toEqual([full.id]);
      expect(ids(await listRefunds({ status: 'pending' }))).toEqual([]);
      expect(ids(await listRefunds({ created_lt: (await refunds.getRefund({ ...scope(), id: full.id }, caller())).created_at }))).toEqual([partial.id]);
      expect((await refunds.listRefunds({ merchant_id: other.merchant_id, environment: 'test', limit: 100 }, caller())).data).toEqual([]);
      expect(await refusal(listRefunds({ external_ref: 'ord-a' }))).toMatchObject({ code: 'invalid_request', param: 'external_ref' });
    });

    it('the API lists answer as before: the same pages, and new parameters still refused there', async () => {
      const api = (path: string) => stack.call('GET', path, { key: merchant.test_key });
      const first = await api('/api/v1/payments?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toEqual(await refunds.listPayments({ ...scope(), limit: 2 }, caller()));
      const next = await api(`/api/v1/payments?limit=2&starting_after=${first.body.data[1].id}`);
      expect(next.body).toEqual(await refunds.listPayments({ ...scope(), limit: 2, starting_after: first.body.data[1].id }, caller()));
      expect((await api('/api/v1/refunds')).body).toEqual(await refunds.listRefunds({ ...scope(), limit: 10 }, caller()));
      expect((await api('/api/v1/payments?status=refunded')).status).toBe(400);
      expect((await api('/api/v1/refunds?amount=5.00')).status).toBe(400);
    });
  });

  describe('a list from a query string', () => {
    it('the parsed query is a command the owner takes', async () => {
      const parsed = parseListQuery('payment_intents', { status: 'succeeded', amount_min: '15', to: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) });
      if (!parsed.ok) throw new Error(parsed.message);
      expect(ids(await sessions.listPaymentIntents({ ...scope(), ...parsed.fields }, caller()))).toEqual([intents[5]!.id, intents[2]!.id]);
    });
  });

  describe('webhook deliveries of one object', () => {
    it("lists the deliveries of an intent's events with their attempts; another merchant's or environment's show none", async () => {
      const intent = intents[0]!;
      await waitFor(
        async () => {
          const list = await webhooks.listObjectDeliveries({ ...scope(), object_id: intent.id }, caller());
          return list.data.length >= 2 && list.data.every((d) => d.attempts.length > 0);
        },
        30_000,
        'the deliveries of the intent',
      );
      const list = await webhooks.listObjectDeliveries({ ...scope(), object_id: intent.id }, caller());
      expect(list.data.map((d) => d.event_type)).toEqual(expect.arrayContaining(['payment_intent.created', 'payment_intent.succeeded']));
      for (const delivery of list.data) {
        expect(delivery).toMatchObject({ object: 'webhook_delivery', status: 'succeeded', endpoint_url: expect.stringMatching(/^http/), event_sequence: expect.any(Number) });
        expect(delivery.attempts[0]).toMatchObject({ status_code: 200, latency_ms: expect.any(Number), attempted_at: expect.any(String) });
      }
      const created = list.data.find((d) => d.event_type === 'payment_intent.created')!;
      expect(created.event_sequence).toBe(1);

      const first = await webhooks.listObjectDeliveries({ ...scope(), object_id: intent.id, limit: 1 }, caller());
      const rest = await webhooks.listObjectDeliveries({ ...scope(), object_id: intent.id, limit: 100, starting_after: first.data[0]!.id }, caller());
      expect([...ids(first), ...ids(rest)]).toEqual(ids(list));

      expect((await webhooks.listObjectDeliveries({ merchant_id: other.merchant_id, environment: 'test', object_id: intent.id }, caller())).data).toEqual([]);
      expect((await webhooks.listObjectDeliveries({ ...scope(), environment: 'live', object_id: intent.id }, caller())).data).toEqual([]);
      const other_ = await refusal(
        webhooks.listObjectDeliveries({ merchant_id: other.merchant_id, environment: 'test', object_id: intent.id, starting_after: first.data[0]!.id }, caller()),
      );
      expect(other_).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
      expect(await refusal(webhooks.listObjectDeliveries({ ...scope(), object_id: '1234' }, caller()))).toMatchObject({ code: 'invalid_request', param: 'object_id' });
    });
  });
});
