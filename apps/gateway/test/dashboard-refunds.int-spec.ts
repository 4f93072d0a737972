import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { CommandClient, ServiceClient } from '@payments/platform';
import { startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { BalanceCache } from '../src/balance/balance-cache';
import { LedgerClient } from '../src/balance/ledger.client';
import { DashboardBalanceController } from '../src/dashboard/balance/balance.controller';
import { NO_HISTORY } from '../src/dashboard/operations/object-history';
import { OperationsController } from '../src/dashboard/operations/operations.controller';
import { DashboardRefunds } from '../src/dashboard/operations/refund-action';
import type { DashboardAuth, Role, SignedInRequest } from '../src/dashboard/session/dashboard-auth';
import { RoleForbidden } from '../src/dashboard/web/dashboard-exception.filter';
import { RefundsClient } from '../src/refunds/refunds.client';
import type { SessionsClient } from '../src/sessions-client/sessions.client';

// The refund button over the real refunds and ledger services (the gateway's own RefundsClient and LedgerClient on
// the command transport): a double submit of one form makes one refund, a viewer refunds nothing, another merchant's
// or environment's payment is not found, and the refund shows in the balance. The signed-in session is given to the
// pages directly: signing in needs the accounts domain (the browser test will sign in for real).
describe('dashboard refund button', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let commands: CommandClient;
  let refunds: RefundsClient;
  let ledger: LedgerClient;

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

  function signedIn(merchantId: string, role: Role, environment: 'test' | 'live' = 'test'): DashboardAuth {
    const page = {
      lang: 'en',
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
    new OperationsController(auth, {} as SessionsClient, refunds, new DashboardRefunds(refunds), NO_HISTORY, { endpointIds: async () => [], deliveries: async () => [] });

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
    stack = await startStack(['sessions', 'refunds', 'ledger', 'gateway'], { RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    other = await stack.createMerchant();
    commands = new CommandClient({
      upstreams: { refunds: [stack.services.refunds!.commandUrl!], ledger: [stack.services.ledger!.commandUrl!] },
      secrets: [DEVELOPMENT_COMMAND_SECRET],
    });
    const services = new ServiceClient(commands, 10_000);
    refunds = new RefundsClient(services);
    ledger = new LedgerClient(services);
  }, 120_000);

  afterAll(async () => {
    await commands?.close();
    await stack?.stop();
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
});
