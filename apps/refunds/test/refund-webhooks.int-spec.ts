import { randomUUID } from 'node:crypto';
import { startStack, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// Merchants learn of refunds by signed webhooks on the payment-intent surface (DESIGN §6), whichever payment was
// refunded: a WebhookEvent with the refund as data.object and X-Service-* headers, verified here with the receiver
// library merchants use.
describe('refund webhooks', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  const receiver = new TestWebhookReceiver();
  const arrivals = receiver.arrivals;

  beforeAll(async () => {
    const receiverUrl = await receiver.listen();
    stack = await startStack(['sessions', 'refunds', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' });
    merchant = await stack.createMerchant({ verified: true });
    const endpoint = await stack.call('POST', '/api/v1/webhook-endpoints', {
      key: merchant.test_key,
      body: { url: receiverUrl, events: ['refund.created', 'refund.completed'] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(endpoint.status).toBe(201);
    receiver.secret = endpoint.body.secret;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver.close();
  });

  const post = async (path: string, body: object) => {
    const res = await stack.call('POST', path, { key: merchant.test_key, body, headers: { 'Idempotency-Key': randomUUID() } });
    expect(res.status).toBeLessThan(300);
    return res.body;
  };
  const arrived = async (refundId: string, type: string) => {
    const find = () => arrivals.find((a) => a.webhook.type === type && JSON.stringify(a.webhook.event).includes(refundId));
    await waitFor(() => find() !== undefined, 30_000, `${type} of ${refundId}`);
    return find()!;
  };

  it('a refund of an intent payment: WebhookEvent with the refund as data.object, X-Service-* signature', async () => {
    const intent = await post('/api/v1/payment-intents', { amount: '30.00', currency: 'USD' });
    const paid = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'togo' });
    const refund = await post(`/api/v1/payments/${paid.payment_id}/refunds`, { amount: '12.00' });
    for (const type of ['refund.created', 'refund.completed']) {
      const arrival = await arrived(refund.id, type);
      expect(arrival.webhook.scheme).toBe('intent');
      expect(arrival.headers['x-service-event']).toBe(type);
      expect(arrival.headers['service-signature']).toBeUndefined();
      expect(arrival.webhook.event).toMatchObject({ type, data: { object: refund } });
    }
  });

  it('a refund of an invoice payment: the same WebhookEvent and X-Service-* signature, not the invoice surface', async () => {
    const invoice = await post('/api/v1/invoices', { amount: '50.00', currency: 'USD' });
    const paid = await post(`/api/v1/invoices/${invoice.id}/simulate`, { result: 'paid' });
    const reference = paid.payment?.reference ?? (await stack.call('GET', `/api/v1/invoices/${invoice.id}`, { key: merchant.test_key })).body.payment.reference;
    const refund = await post(`/api/v1/payments/${reference}/refunds`, { reason: 'returned' });
    expect(refund).toMatchObject({ amount: '50.00', status: 'completed', payment_id: reference });
    const arrival = await arrived(refund.id, 'refund.completed');
    expect(arrival.webhook.scheme).toBe('intent');
    expect(arrival.headers['x-service-event']).toBe('refund.completed');
    expect(arrival.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(arrival.headers['service-signature']).toBeUndefined();
    expect(arrival.webhook.event).toEqual({
      id: arrival.webhook.id,
      type: 'refund.completed',
      created: expect.any(Number),
      environment: 'test',
      sequence: 2,
      data: { object: refund },
    });
    expect(receiver.rejected).toBe(0);
  });
});
