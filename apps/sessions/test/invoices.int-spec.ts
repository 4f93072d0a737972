import { validateEnvelope } from '@payments/events';
import { isPaymentId } from '@payments/ids';
import { uniqueName } from '@payments/testing';
import { ORDER_42_INVOICE_UNPAID } from '../src/domain/invoice.fixtures';
import { BASE_URL, codeOf, invoiceCommand, suiteHarness, testMerchant } from './support/sessions-harness';

// Invoice commands against a real Postgres: numbers, payments, events and outbox.
describe('invoices', () => {
  const h = suiteHarness();
  const { merchant, scope } = testMerchant();

  it('creates a pending invoice numbered from 1001 that expires after 24 h by default', async () => {
    const created = await h.invoices.create(invoiceCommand(merchant, {}, { metadata: { order: '42' } }), 'req_i1');
    expect(created).toEqual({
      id: expect.stringMatching(/^inv_test_[A-Za-z0-9]{24}$/),
      number: '1001',
      status: 'pending',
      environment: 'test',
      ...ORDER_42_INVOICE_UNPAID,
      checkout_url: `${BASE_URL}/checkout/${created.id}`,
      created_at: expect.any(String),
      expires_at: expect.any(String),
      paid_at: null,
      metadata: { order: '42' },
      payment: null,
    });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(86_400 * 1000);
    expect(await h.invoices.get({ ...scope, id: created.id })).toEqual(created);
    const [envelope] = await h.outboxOf(created.id);
    expect(validateEnvelope(envelope)).toMatchObject({
      type: 'invoice.created',
      aggregate_type: 'invoice',
      sequence: 1,
      correlation_id: 'req_i1',
      data: { object: created },
    });
  });

  it('simulates paid: wallet by default, fee 0.5%, the payment record, and the payment in invoice.paid', async () => {
    const created = await h.invoices.create(invoiceCommand(merchant), 'req_i2');
    expect(await h.invoices.simulate({ ...scope, id: created.id, result: 'paid' }, 'req_i3')).toEqual({
      id: created.id,
      status: 'paid',
      environment: 'test',
    });
    const paid = await h.invoices.get({ ...scope, id: created.id });
    expect(paid).toMatchObject({ status: 'paid', fee: '0.37', net: '73.63', payment: { method: 'wallet', payer_country: 'US' } });
    expect(paid.paid_at).toBe(paid.payment!.paid_at);
    expect(isPaymentId(paid.payment!.reference)).toBe(true);
    expect(paid.payment!.payer_phone).toMatch(/\*/);

    expect(await h.count('payments', 'id = $1 AND source_type = $2 AND method = $3', [paid.payment!.reference, 'invoice', 'wallet'])).toBe(1);
    const outbox = await h.outboxOf(created.id);
    expect(outbox.map((e) => [e.type, e.sequence])).toEqual([
      ['invoice.created', 1],
      ['invoice.paid', 2],
    ]);
    expect(outbox[1]!.data).toEqual({
      object: paid,
      payment: { id: paid.payment!.reference, method: 'wallet', amount: '74.00', fee: '0.37', fee_rate_bps: 50, net: '73.63', currency: 'USD' },
    });
  });

  it('prices wallet with the merchant togo override, and can be paid after a failure', async () => {
    const created = await h.invoices.create(invoiceCommand(merchant, { merchant: { enabled_methods: ['togo', 'lahza'], fee_overrides: { togo: 100 } } }), 'r');
    expect((await h.invoices.simulate({ ...scope, id: created.id, result: 'failed', method: 'lahza' }, 'r')).status).toBe('failed');
    expect((await h.invoices.simulate({ ...scope, id: created.id, result: 'paid', method: 'togo' }, 'r')).status).toBe('paid');
    expect(await h.invoices.get({ ...scope, id: created.id })).toMatchObject({ fee: '0.74', net: '73.26', payment: { method: 'wallet' } });
    expect((await h.outboxOf(created.id)).map((e) => e.type)).toEqual(['invoice.created', 'invoice.payment_failed', 'invoice.paid']);
  });

  it('simulates expired at once, then refuses payment with invalid_state', async () => {
    const created = await h.invoices.create(invoiceCommand(merchant), 'r');
    expect((await h.invoices.simulate({ ...scope, id: created.id, result: 'expired' }, 'r')).status).toBe('expired');
    expect(await codeOf(h.invoices.simulate({ ...scope, id: created.id, result: 'paid' }, 'r'))).toBe('invalid_state');
    expect((await h.outboxOf(created.id)).map((e) => e.type)).toEqual(['invoice.created', 'invoice.expired']);
  });

  it('refuses live simulation, unknown ids and disabled methods', async () => {
    const live = await h.invoices.create(invoiceCommand(merchant, { environment: 'live' }), 'r');
    expect(live.id).toMatch(/^inv_(?!test_)/);
    expect(live.number).toBe('1001');
    expect(await codeOf(h.invoices.simulate({ ...scope, environment: 'live', id: live.id, result: 'paid' }, 'r'))).toBe('live_mode_not_allowed');
    expect(await codeOf(h.invoices.get({ ...scope, id: live.id }))).toBe('not_found');
    expect(await codeOf(h.invoices.get({ ...scope, merchant_id: uniqueName('acct'), environment: 'live', id: live.id }))).toBe('not_found');
    expect(await codeOf(h.invoices.simulate({ ...scope, id: 'inv_test_000000000000000000000000', result: 'paid' }, 'r'))).toBe('not_found');
    expect(await codeOf(h.invoices.create(invoiceCommand(merchant, { merchant: { enabled_methods: ['lahza'] } }, { methods: ['wallet'] }), 'r'))).toBe(
      'payment_methods_unavailable',
    );
  });

  it('numbers 50 concurrent creates 1001..1050 with no duplicate and no gap, per merchant and environment', async () => {
    const other = uniqueName('acct');
    const results = await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => h.invoices.create(invoiceCommand(other), `req_n${i}`)),
      // Repeats of one key take no number.
      ...Array.from({ length: 5 }, () => h.invoices.create({ ...invoiceCommand(other), idempotency_key: 'same-key' }, 'req_same')),
    ]);
    const numbers = results.map((r) => Number(r.number));
    const distinct = [...new Set(numbers)].sort((a, b) => a - b);
    expect(distinct).toEqual(Array.from({ length: 51 }, (_, i) => 1001 + i));
    expect(new Set(results.slice(50).map((r) => r.id)).size).toBe(1);
    expect(await h.count('invoices', 'merchant_id = $1', [other])).toBe(51);
    // Another environment of the same merchant has its own sequence.
    expect((await h.invoices.create(invoiceCommand(other, { environment: 'live' }), 'r')).number).toBe('1001');
  });

  it('gives the number of a refused create to the next one', async () => {
    const other = uniqueName('acct');
    expect((await h.invoices.create(invoiceCommand(other), 'r')).number).toBe('1001');
    expect(await codeOf(h.invoices.create(invoiceCommand(other, {}, { expires_in: 10 }), 'r'))).toBe('invalid_request');
    expect((await h.invoices.create(invoiceCommand(other), 'r')).number).toBe('1002');
  });
});
