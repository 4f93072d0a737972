import type { InvoiceResource } from '@payments/contracts';
import { renderTestWebhook, renderWebhook } from './webhook-body';

const invoice: InvoiceResource = {
  id: 'inv_test_AbCdEfGhIjKlMnOpQrStUvWx',
  number: '1001',
  status: 'paid',
  environment: 'test',
  amount: '74.00',
  currency: 'USD',
  fee: '0.37',
  net: '73.63',
  external_ref: 'order-42',
  description: 'Two mugs',
  checkout_url: 'http://localhost:3000/checkout/inv_test_AbCdEfGhIjKlMnOpQrStUvWx',
  created_at: '2025-01-01T10:00:00.000Z',
  expires_at: '2025-01-02T10:00:00.000Z',
  paid_at: '2025-01-01T10:05:00.000Z',
  metadata: { cart: '7' },
  payment: {
    reference: '1234567890123',
    method: 'wallet',
    payer_name: 'Ada',
    payer_email: 'ada@example.com',
    payer_phone: '+22*****89',
    payer_country: 'TG',
    paid_at: '2025-01-01T10:05:00.000Z',
  },
};

describe('renderWebhook', () => {
  it('renders invoice events in the invoice surface shape, field for field', () => {
    const rendered = renderWebhook({
      id: 'evt_123',
      type: 'invoice.paid',
      sequence: 2,
      environment: 'test',
      occurred_at: '2025-01-01T10:05:00.000Z',
      data: { object: invoice, payment: { id: '1234567890123' } },
    });
    expect(rendered.scheme).toBe('invoice');
    // Exact text: these bytes are what is signed.
    expect(rendered.body).toBe(
      JSON.stringify({
        id: 'evt_123',
        event: 'invoice.paid',
        created_at: '2025-01-01T10:05:00.000Z',
        sequence: 2,
        data: {
          environment: 'test',
          invoice_id: invoice.id,
          invoice_number: '1001',
          external_ref: 'order-42',
          status: 'paid',
          amount: '74.00',
          fee: '0.37',
          net: '73.63',
          currency: 'USD',
          metadata: { cart: '7' },
          payment: invoice.payment,
        },
      }),
    );
  });

  it('renders payment-intent and refund events as WebhookEvent {id, type, created, data.object}', () => {
    const object = { id: 'pi_test_x', object: 'payment_intent', status: 'succeeded' };
    const rendered = renderWebhook({
      id: 'evt_456',
      type: 'payment_intent.succeeded',
      sequence: 3,
      environment: 'live',
      occurred_at: '2025-01-01T10:05:07.900Z',
      data: { object, payment: { id: '1' } },
    });
    expect(rendered.scheme).toBe('intent');
    expect(JSON.parse(rendered.body)).toEqual({
      id: 'evt_456',
      type: 'payment_intent.succeeded',
      created: 1735725907,
      environment: 'live',
      sequence: 3,
      data: { object },
    });
    const refund = renderWebhook({
      id: 'evt_789',
      type: 'refund.completed',
      sequence: 2,
      environment: 'test',
      occurred_at: '2025-01-01T10:05:07Z',
      data: { object: { id: 're_1', object: 'refund', status: 'completed' } },
    });
    expect(refund.scheme).toBe('intent');
    expect(JSON.parse(refund.body).data).toEqual({ object: { id: 're_1', object: 'refund', status: 'completed' } });
  });

  it('refuses an invoice event without an invoice', () => {
    expect(() =>
      renderWebhook({ id: 'evt_1', type: 'invoice.paid', sequence: 1, environment: 'test', occurred_at: '2025-01-01T00:00:00Z', data: {} }),
    ).toThrow(/no invoice/);
  });

  it('renders the test event in the payment-intent scheme', () => {
    const rendered = renderTestWebhook({
      id: 'evt_t',
      endpoint: { id: 'we_1', url: 'https://shop.example/hooks', environment: 'test', sequence: 4 },
      occurredAt: new Date('2025-01-01T00:00:00Z'),
    });
    expect(rendered.scheme).toBe('intent');
    expect(JSON.parse(rendered.body)).toEqual({
      id: 'evt_t',
      type: 'webhook_endpoint.test',
      created: 1735689600,
      environment: 'test',
      sequence: 4,
      data: { object: { id: 'we_1', object: 'webhook_endpoint', url: 'https://shop.example/hooks', environment: 'test' } },
    });
  });
});

describe('renderWebhook: refunds always on the payment-intent surface (DESIGN §6)', () => {
  const refund = {
    id: 're_AbCdEfGhIjKlMnOpQrStUvWx',
    object: 'refund',
    payment_id: '1234567890123',
    amount: '10.00',
    currency: 'USD',
    reason: 'damaged',
    status: 'completed',
    failure_reason: null,
    environment: 'test',
    created_at: '2025-01-01T11:00:00.000Z',
    completed_at: '2025-01-01T11:00:00.000Z',
  } as const;
  const event = (source: string) => ({
    id: 'evt_789',
    type: 'refund.completed',
    sequence: 2,
    environment: 'test' as const,
    occurred_at: '2025-01-01T11:00:00.000Z',
    data: { object: refund, payment: { id: '1234567890123', source, method: 'wallet', amount: '74.00', currency: 'USD' } },
  });

  it.each([
    ['an invoice payment', invoice.id],
    ['an intent payment', 'pi_test_AbCdEfGhIjKlMnOpQrStUvWx'],
  ])('a refund of %s: the WebhookEvent with the refund as data.object', (_, source) => {
    const rendered = renderWebhook(event(source));
    expect(rendered.scheme).toBe('intent');
    expect(rendered.body).toBe(
      JSON.stringify({ id: 'evt_789', type: 'refund.completed', created: 1735729200, environment: 'test', sequence: 2, data: { object: refund } }),
    );
  });

  it('refund.failed the same, with the provider\'s reason', () => {
    const failed = { ...refund, status: 'failed', failure_reason: 'Insufficient merchant balance', completed_at: null };
    for (const source of [invoice.id, 'pi_live_AbCdEfGhIjKlMnOpQrStUvWx']) {
      const base = event(source);
      const rendered = renderWebhook({ ...base, type: 'refund.failed', data: { ...base.data, object: failed } });
      expect(rendered.scheme).toBe('intent');
      expect(JSON.parse(rendered.body)).toMatchObject({ type: 'refund.failed', data: { object: failed } });
    }
  });
});
