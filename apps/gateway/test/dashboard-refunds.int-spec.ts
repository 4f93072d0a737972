import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { CommandClient, ServiceClient } from '@payments/platform';
import { startStack, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';
import { Redis } from 'ioredis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BalanceCache } from '../src/balance/balance-cache';
import { LedgerClient } from '../src/balance/ledger.client';
import { DashboardBalanceController } from '../src/dashboard/balance/balance.controller';
import { OwnersHistory } from '../src/dashboard/operations/object-history';
import { OperationsController } from '../src/dashboard/operations/operations.controller';
import { DashboardRefunds } from '../src/dashboard/operations/refund-action';
import type { DashboardAuth, Role, SignedInRequest } from '../src/dashboard/session/dashboard-auth';
import { RoleForbidden } from '../src/dashboard/web/dashboard-exception.filter';
import { RefundsClient } from '../src/refunds/refunds.client';
import { ResourceCache } from '../src/resource-cache/resource-cache';
import { SessionsClient } from '../src/sessions-client/sessions.client';
import { WebhooksClient } from '../src/webhook-endpoints/webhooks.client';

// The operations views over the real sessions, refunds, ledger and webhook-dispatcher services (the gateway's own
// clients on the command transport): a double submit of the refund form makes one refund, a viewer refunds nothing,
// another merchant's or environment's payment is not found, the refund shows in the balance and as a delivery on
// the payment's page, and the lists filter and export through the owners' list commands. The signed-in session is given to the
// pages directly: signing in needs the accounts domain (the browser test will sign in for real).
describe('dashboard refund button', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let commands: CommandClient;
  let refunds: RefundsClient;
  let ledger: LedgerClient;
  let sessions: SessionsClient;
  let webhooks: WebhooksClient;
  let redis: Redis;
  const receiver = new TestWebhookReceiver();

  class Reply {
    status = 0;
    body = '';
    location = '';
    code(status: number): this {
      this.status = status;
      return this;
    }
    headers(): this {
      return this;
    }
    async send(body: string): Promise<void> {
      this.body = body;
    }
    async redirect(location: string, status: number): Promise<void> {
      this.location = location;
      this.status = status;
    }
  }
  const asReply = (reply: Reply) => reply as unknown as FastifyReply;
  const request = () => ({ id: randomUUID() }) as unknown as FastifyRequest;

  function signedIn(merchantId: string, role: Role, environment: 'test' | 'live' = 'test', lang: 'en' | 'ar' = 'en'): DashboardAuth {
    const page = {
      lang,
      nonce: 'n',
      csrf: 't',
      path: '/dashboard/test/payments',
      environment,
      sid: 's',
      session: { userId: 'u', merchantId, epoch: 0, csrfSecret: 'x', signedInAt: 0 },
      user: { id: 'u', email: 'u@example.com', role, merchantId, sessionEpoch: 0, merchant: { id: merchantId, name: 'Shop', verificationStatus: 'verified', rejectionReason: null } },
    } as SignedInRequest;
    return { signedInPage: async () => page, signedInForm: async () => page } as unknown as DashboardAuth;
  }

  const pages = (auth: DashboardAuth) =>
    new OperationsController(auth, sessions, refunds, new DashboardRefunds(refunds), new OwnersHistory(sessions, webhooks));

  async function paidPayment(amount: string): Promise<string> {
    const key = merchant.test_key;
    const intent = (await stack.call('POST', '/api/v1/payment-intents', { key, body: { amount, currency: 'USD' }, headers: { 'Idempotency-Key': randomUUID() } })).body;
    const paid = await stack.call('POST', `/api/v1/payment-intents/${intent.id}/simulate`, { key, body: { result: 'succeeded', method: 'togo' } });
    expect(paid.status).toBe(200);
    return paid.body.payment_id as string;
  }

  async function formKey(controller: OperationsController, paymentId: string): Promise<string> {
    const reply = new Reply();
    await controller.refundForm('test', paymentId, request(), asReply(reply));
    expect(reply.status).toBe(200);
    return /name="idempotency_key" value="([^"]+)"/.exec(reply.body)![1]!;
  }

  beforeAll(async () => {
    const receiverUrl = await receiver.listen();
    stack = await startStack(['sessions', 'refunds', 'ledger', 'webhook-dispatcher', 'gateway'], { RATE_LIMIT_TEST_PER_SEC: '10000', WEBHOOK_ALLOW_INSECURE_TARGETS: '1' });
    merchant = await stack.createMerchant({ verified: true });
    other = await stack.createMerchant();
    const endpoint = await stack.call('POST', '/api/v1/webhook-endpoints', { key: merchant.test_key, body: { url: receiverUrl }, headers: { 'Idempotency-Key': randomUUID() } });
    expect(endpoint.status).toBe(201);
    receiver.secret = endpoint.body.secret;
    const url = (app: 'sessions' | 'refunds' | 'ledger' | 'webhook-dispatcher') => [stack.services[app]!.commandUrl!];
    commands = new CommandClient({
      upstreams: { sessions: url('sessions'), refunds: url('refunds'), ledger: url('ledger'), webhooks: url('webhook-dispatcher') },
      secrets: [DEVELOPMENT_COMMAND_SECRET],
    });
    const services = new ServiceClient(commands, 10_000);
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    refunds = new RefundsClient(services);
    ledger = new LedgerClient(services);
    sessions = new SessionsClient(services, new ResourceCache(redis, stack.namespace, 60));
    webhooks = new WebhooksClient(services);
  }, 120_000);

  afterAll(async () => {
    await commands?.close();
    redis?.disconnect();
    await stack?.stop();
    await receiver.close();
  });

  it('makes one refund of a form submitted twice at once, and the refund shows on the payment and in the balance', async () => {
    const paymentId = await paidPayment('20.00');
    const owner = pages(signedIn(merchant.merchant_id, 'owner'));
    const key = await formKey(owner, paymentId);
    const form = { _csrf: 't', idempotency_key: key, mode: 'partial', amount: '7.50', reason: 'damaged', step: 'confirm' };
    const [first, second] = [new Reply(), new Reply()];
    await Promise.all([owner.refund('test', paymentId, form, request(), asReply(first)), owner.refund('test', paymentId, form, request(), asReply(second))]);
    expect(first.status).toBe(303);
    expect(second.location).toBe(first.location);

    const payment = (await stack.call('GET', `/api/v1/payments/${paymentId}`, { key: merchant.test_key })).body;
    expect(payment.refunds).toHaveLength(1);
    expect(payment.refunds[0]).toMatchObject({ amount: '7.50', reason: 'damaged' });
    expect(first.location).toBe(`/dashboard/test/payments/${paymentId}?refunded=${payment.refunds[0].id}`);

    const shown = new Reply();
    await owner.payment('test', paymentId, { refunded: payment.refunds[0].id }, request(), asReply(shown));
    expect(shown.body).toContain(`Refund ${payment.refunds[0].id} of 7.50 USD was made`);
    // The intent's events with their sequence, and the refund's webhook delivery on the payment's page.
    expect(shown.body).toMatch(/data-timeline.*<td class="num">1<\/td><td><code>payment_intent\.created<\/code>/s);
    await waitFor(async () => {
      const reply = new Reply();
      await owner.payment('test', paymentId, {}, request(), asReply(reply));
      return /data-deliveries.*<code>refund\.(created|completed)<\/code>/s.test(reply.body);
    }, 30_000, "the refund's delivery on the payment's page");

    // More than remains: the service's refusal is the page's message, and nothing more is refunded.
    const over = new Reply();
    await owner.refund('test', paymentId, { ...form, idempotency_key: await formKey(owner, paymentId), amount: '13.00' }, request(), asReply(over));
    expect(over.status).toBe(409);
    expect(over.body).toContain('data-refund-problem');

    const balance = new DashboardBalanceController(signedIn(merchant.merchant_id, 'viewer'), ledger, new BalanceCache(0, (scope, caller) => ledger.getBalance(scope, caller)));
    await waitFor(async () => {
      const reply = new Reply();
      await balance.balance('test', { type: 'refund' }, request(), asReply(reply));
      return reply.body.includes('-7.50 USD');
    }, 20_000, 'the refund in the balance transactions');
  });

  it('lists and exports payments and intents filtered by the owners, and a viewer sees them too', async () => {
    const small = await paidPayment('3.21');
    const large = await paidPayment('654.32');
    const viewer = pages(signedIn(merchant.merchant_id, 'viewer'));
    // The refunds service records payments from their events: the list shows them once those have arrived.
    let list = new Reply();
    await waitFor(async () => {
      list = new Reply();
      await viewer.payments('test', { amount_min: '3', amount_max: '700' }, request(), asReply(list));
      return list.body.includes(`>${small}</a>`) && list.body.includes(`>${large}</a>`);
    }, 20_000, 'both payments in the list');
    list = new Reply();
    await viewer.payments('test', { amount_min: '600', amount_max: '700' }, request(), asReply(list));
    expect(list.status).toBe(200);
    expect(list.body).toContain(`>${large}</a>`);
    expect(list.body).not.toContain(`>${small}</a>`);
    expect(list.body).toContain('<td class="num"><span dir="ltr">654.32 USD</span></td>');

    const intents = new Reply();
    await viewer.intents('test', { status: 'succeeded', amount_min: '3.21', amount_max: '3.21' }, request(), asReply(intents));
    expect(intents.body.match(/\/dashboard\/test\/payment-intents\/pi_test_/g)).toHaveLength(1);

    const csv = new Reply();
    let headers: Record<string, string> = {};
    const csvReply = Object.assign(csv, {
      headers(values: Record<string, string>) {
        headers = values;
        return csv;
      },
      async send(body: NodeJS.ReadableStream) {
        let text = '';
        for await (const chunk of body) text += String(chunk);
        csv.body = text;
      },
    });
    await viewer.paymentsCsv('test', { amount_min: '3', amount_max: '4' }, request(), csvReply as unknown as FastifyReply);
    expect(headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(headers['content-disposition']).toMatch(/^attachment; filename="payments-test-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(csv.body.split('\r\n').filter(Boolean)).toEqual(['id,amount,refunded_amount,fee,net,currency,status,method,source,created_at', expect.stringMatching(new RegExp(`^${small},3\\.21,0\\.00,`))]);

    // The other environment's list does not show them.
    const live = new Reply();
    await pages(signedIn(merchant.merchant_id, 'viewer', 'live')).payments('live', {}, request(), asReply(live));
    expect(live.body).not.toContain(`>${large}</a>`);
  });

  it("refuses a viewer's refund with nothing refunded; another merchant's or environment's payment is not found", async () => {
    const paymentId = await paidPayment('9.00');
    const owner = pages(signedIn(merchant.merchant_id, 'owner'));
    const key = await formKey(owner, paymentId);
    const viewer = pages(signedIn(merchant.merchant_id, 'viewer'));
    const form = { _csrf: 't', idempotency_key: key, mode: 'full', step: 'confirm' };
    await expect(viewer.refund('test', paymentId, form, request(), asReply(new Reply()))).rejects.toBeInstanceOf(RoleForbidden);
    const shown = new Reply();
    await viewer.payment('test', paymentId, {}, request(), asReply(shown));
    expect(shown.body).not.toContain('data-refund-button');

    const stranger = pages(signedIn(other.merchant_id, 'owner'));
    await expect(stranger.refund('test', paymentId, form, request(), asReply(new Reply()))).rejects.toMatchObject({ code: 'not_found' });
    await expect(stranger.payment('test', paymentId, {}, request(), asReply(new Reply()))).rejects.toMatchObject({ code: 'not_found' });
    const live = pages(signedIn(merchant.merchant_id, 'owner', 'live'));
    await expect(live.refund('live', paymentId, form, request(), asReply(new Reply()))).rejects.toMatchObject({ code: 'not_found' });

    expect((await stack.call('GET', `/api/v1/payments/${paymentId}`, { key: merchant.test_key })).body.refunds).toEqual([]);
  });

  it('draws every operations page without axe violations and without sideways scrolling at 360 px, in English and Arabic', async () => {
    const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    const paymentId = await paidPayment('42.00');
    const owner = pages(signedIn(merchant.merchant_id, 'owner'));
    const key = await formKey(owner, paymentId);
    const done = new Reply();
    await owner.refund('test', paymentId, { _csrf: 't', idempotency_key: key, mode: 'partial', amount: '2.00', step: 'confirm' }, request(), asReply(done));
    expect(done.status).toBe(303);
    const intentId = (await stack.call('GET', `/api/v1/payments/${paymentId}`, { key: merchant.test_key })).body.source as string;

    const shots = join(__dirname, '..', '..', '..', '.cache', 'screenshots');
    mkdirSync(shots, { recursive: true });
    const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
      const tab = await context.newPage();
      for (const lang of ['en', 'ar'] as const) {
        const auth = signedIn(merchant.merchant_id, 'owner', 'test', lang);
        const views = pages(auth);
        const balance = new DashboardBalanceController(auth, ledger, new BalanceCache(0, (scope, caller) => ledger.getBalance(scope, caller)));
        const drawn: Array<[string, (reply: Reply) => Promise<void>]> = [
          ['payments', (r) => views.payments('test', { status: 'bogus', amount_min: '1' }, request(), asReply(r))],
          ['payment', (r) => views.payment('test', paymentId, {}, request(), asReply(r))],
          ['refund-form', (r) => views.refundForm('test', paymentId, request(), asReply(r))],
          ['refund-confirm', (r) => views.refund('test', paymentId, { _csrf: 't', idempotency_key: key, mode: 'partial', amount: '1.00', step: 'review' }, request(), asReply(r))],
          ['payment-intents', (r) => views.intents('test', {}, request(), asReply(r))],
          ['payment-intent', (r) => views.intent('test', intentId, request(), asReply(r))],
          ['refunds', (r) => views.refundList('test', {}, request(), asReply(r))],
          ['invoices', (r) => views.invoices('test', {}, request(), asReply(r))],
          ['balance', (r) => balance.balance('test', {}, request(), asReply(r))],
        ];
        for (const [name, draw] of drawn) {
          const reply = new Reply();
          await draw(reply);
          expect([name, reply.status]).toEqual([name, 200]);
          await tab.setContent(reply.body);
          await tab.evaluate(axe);
          const result = (await tab.evaluate('axe.run()')) as { violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> };
          await tab.screenshot({ path: join(shots, `dashboard-${name}-${lang}-360.png`), fullPage: true });
          expect([name, lang, result.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) }))]).toEqual([name, lang, []]);
          expect([name, lang, await tab.evaluate('document.documentElement.scrollWidth')]).toEqual([name, lang, 360]);
        }
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
