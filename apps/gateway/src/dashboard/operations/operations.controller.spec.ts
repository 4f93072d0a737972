import type { PaymentResource, RefundResource } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefundsClient } from '../../refunds/refunds.client';
import type { SessionsClient } from '../../sessions-client/sessions.client';
import type { DashboardAuth, Role, SignedInRequest } from '../session/dashboard-auth';
import { RoleForbidden } from '../web/dashboard-exception.filter';
import type { ObjectHistory } from './object-history';
import { OperationsController } from './operations.controller';
import { DashboardRefunds, REFUND_FORM_KEY } from './refund-action';

// The page functions on their own, with the owners' commands answered in memory (the refund over the real
// refunds service is in apps/gateway/test/dashboard-refunds.int-spec.ts).

function signedIn(role: Role, environment: 'test' | 'live' = 'test', lang: 'en' | 'ar' = 'en'): SignedInRequest {
  return {
    lang,
    nonce: 'n',
    csrf: 'token',
    path: '/dashboard/test/payments/1',
    environment,
    sid: 's',
    session: { userId: 'u1', merchantId: 'm1', epoch: 0, csrfSecret: 'x', signedInAt: 0 },
    user: { id: 'u1', email: 'a@example.com', role, merchantId: 'm1', sessionEpoch: 0, merchant: { id: 'm1', name: 'Shop', verificationStatus: 'verified', rejectionReason: null } },
  } as SignedInRequest;
}

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

const payment: PaymentResource = {
  id: '1',
  object: 'payment',
  amount: '74.00',
  refunded_amount: '10.00',
  currency: 'USD',
  status: 'partially_refunded',
  source: 'pi_test_abc',
  method: 'togo',
  fee: '0.37',
  net: '73.63',
  environment: 'test',
  created_at: '2026-11-27T10:00:00.000Z',
  refunds: [{ id: `re_${'a'.repeat(24)}`, amount: '10.00', status: 'completed' } as RefundResource],
};

function setup(role: Role, answer?: (name: string, body: Record<string, unknown>) => unknown, lang: 'en' | 'ar' = 'en') {
  const sent: Array<{ name: string; body: Record<string, unknown>; commandId?: string }> = [];
  const send = async (name: string, body: Record<string, unknown>, caller: { commandId?: string }) => {
      sent.push({ name, body, commandId: caller.commandId });
      if (answer) return answer(name, body);
      if (name === 'payments.get') {
        if (body.id !== '1' || body.merchant_id !== 'm1' || body.environment !== 'test') throw new ApiError('not_found', 'No such payment.');
        return payment;
      }
      if (name === 'refunds.create') return { id: `re_${'b'.repeat(24)}`, amount: (body.params as { amount?: string }).amount ?? '64.00', status: 'completed' };
      throw new Error(`unexpected ${name}`);
  };
  const refunds = {
    send,
    getPayment: (body: Record<string, unknown>, caller: { commandId?: string }) => send('payments.get', body, caller),
  } as unknown as RefundsClient;
  const page = signedIn(role, 'test', lang);
  const auth = {
    signedInPage: async () => page,
    signedInForm: async () => page,
  } as unknown as DashboardAuth;
  const history: ObjectHistory = {
    timeline: async (_scope, id) => (id === 'pi_test_abc' ? [{ object: 'session_event', sequence: 2, type: 'payment_intent.succeeded', name: 'PaymentIntentSucceeded', occurred_at: '2026-11-27T10:00:00.000Z' }, { object: 'session_event', sequence: 1, type: 'payment_intent.created', name: 'PaymentIntentCreated', occurred_at: '2026-11-27T09:59:00.000Z' }] : null),
    deliveries: async (_scope, ids) => {
      deliveriesAsked.push([...ids]);
      return [];
    },
  };
  const deliveriesAsked: string[][] = [];
  const controller = new OperationsController(auth, {} as SessionsClient, refunds, new DashboardRefunds(refunds), history);
  return { controller, sent, deliveriesAsked };
}

const request = { id: 'req-1' } as unknown as FastifyRequest;
const asReply = (reply: Reply) => reply as unknown as FastifyReply;

describe('payment page and refund button', () => {
  it('shows the payment with its amounts as given and a refund button to a developer', async () => {
    const { controller, deliveriesAsked } = setup('developer');
    const reply = new Reply();
    await controller.payment('test', '1', {}, request, asReply(reply));
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('74.00 USD');
    expect(reply.body).toContain('<td class="num"><span dir="ltr">10.00 USD</span></td>');
    expect(reply.body).toContain('data-refund-button');
    // The payment's events are its intent's, in sequence order; its deliveries are the intent's and its refunds'.
    expect(reply.body).toMatch(/<td class="num">1<\/td><td><code>payment_intent.created<\/code>.*<td class="num">2<\/td><td><code>payment_intent.succeeded/s);
    expect(deliveriesAsked).toEqual([['pi_test_abc', `re_${'a'.repeat(24)}`]]);
  });

  it('shows a viewer no refund button, refuses their form page and their post with nothing sent', async () => {
    const { controller, sent } = setup('viewer');
    const reply = new Reply();
    await controller.payment('test', '1', {}, request, asReply(reply));
    expect(reply.body).not.toContain('data-refund-button');
    await expect(controller.refundForm('test', '1', request, asReply(new Reply()))).rejects.toBeInstanceOf(RoleForbidden);
    sent.length = 0;
    const form = { _csrf: 'token', idempotency_key: `dashboard_refund_${'a'.repeat(32)}`, mode: 'full', step: 'confirm' };
    await expect(controller.refund('test', '1', form, request, asReply(new Reply()))).rejects.toBeInstanceOf(RoleForbidden);
    expect(sent).toEqual([]);
  });

  it('another merchant or environment: the owner answers not found and the page is not drawn', async () => {
    const { controller } = setup('owner');
    await expect(controller.payment('test', '2', {}, request, asReply(new Reply()))).rejects.toMatchObject({ code: 'not_found' });
    await expect(controller.payment('test', 'pi_test_x', {}, request, asReply(new Reply()))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('renders the form with a fresh key, confirms, then refunds once under that key', async () => {
    const { controller, sent } = setup('owner');
    const formReply = new Reply();
    await controller.refundForm('test', '1', request, asReply(formReply));
    const key = /name="idempotency_key" value="([^"]+)"/.exec(formReply.body)?.[1] ?? '';
    expect(key).toMatch(REFUND_FORM_KEY);
    expect(formReply.body).toContain('Refundable: 64.00 USD of 74.00 USD.');

    const review = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '12.50', step: 'review' }, request, asReply(review));
    expect(review.body).toContain('Refund 12.50 USD of payment 1?');
    expect(review.body).toContain(`value="${key}"`);
    expect(sent.filter((s) => s.name === 'refunds.create')).toEqual([]);

    const done = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '12.50', step: 'confirm' }, request, asReply(done));
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/dashboard/test/payments/1?refunded=re_${'b'.repeat(24)}`);
    expect(sent.filter((s) => s.name === 'refunds.create')).toEqual([
      { name: 'refunds.create', body: { merchant_id: 'm1', environment: 'test', payment_id: '1', idempotency_key: key, params: { amount: '12.50' } }, commandId: key },
    ]);
  });

  it("refuses an amount by the API's own rules, and shows the service's refusal", async () => {
    const { controller, sent } = setup('owner');
    const key = `dashboard_refund_${'c'.repeat(32)}`;
    const bad = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '1.234', step: 'confirm' }, request, asReply(bad));
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('data-refund-problem>Enter an amount in US dollars with at most two decimals');
    expect(sent.filter((s) => s.name === 'refunds.create')).toEqual([]);

    const missing = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', step: 'review' }, request, asReply(missing));
    expect(missing.body).toContain('Enter the amount of a partial refund.');

    const refused = setup('owner', (name) => {
      if (name === 'payments.get') return payment;
      throw new ApiError('refund_exceeds_payment', 'The refund exceeds what remains of the payment (64.00).');
    });
    const over = new Reply();
    await refused.controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '100.00', step: 'confirm' }, request, asReply(over));
    expect(over.status).toBe(409);
    expect(over.body).toContain('data-refund-problem>That is more than remains to refund of this payment');
  });

  it('says why a refund was refused in the page’s language, not the API’s English', async () => {
    const key = `dashboard_refund_${'d'.repeat(32)}`;
    const { controller } = setup('owner', undefined, 'ar');
    const bad = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '1.234', step: 'confirm' }, request, asReply(bad));
    expect(bad.body).toContain('data-refund-problem>أدخل مبلغاً بالدولار الأمريكي');
    const long = new Reply();
    await controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'full', reason: 'r'.repeat(256), step: 'confirm' }, request, asReply(long));
    expect(long.body).toContain('data-refund-problem>يمكن أن يكون السبب 255 حرفاً على الأكثر.');
    const refused = setup('owner', (name) => {
      if (name === 'payments.get') return payment;
      throw new ApiError('refund_exceeds_payment', 'The refund exceeds what remains of the payment (64.00).', 'amount');
    }, 'ar');
    const over = new Reply();
    await refused.controller.refund('test', '1', { _csrf: 'token', idempotency_key: key, mode: 'partial', amount: '100.00', step: 'confirm' }, request, asReply(over));
    expect(over.status).toBe(409);
    expect(over.body).toContain('data-refund-problem>هذا أكثر مما تبقى للاسترداد');
    expect(over.body).not.toContain('exceeds');
  });

  it('treats a form without its key as expired: nothing sent', async () => {
    const { controller, sent } = setup('owner');
    await expect(controller.refund('test', '1', { _csrf: 'token', mode: 'full', step: 'confirm' }, request, asReply(new Reply()))).rejects.toMatchObject({ reason: 'csrf' });
    expect(sent).toEqual([]);
  });
});
