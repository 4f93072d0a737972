import { validateCommand } from './validate-command';

const scope = { merchant_id: 'acct_1', environment: 'test' as const };
const create = (params: Record<string, unknown>) => ({ ...scope, idempotency_key: 'k1', merchant: { enabled_methods: ['togo'] }, params });


// Limits at their boundaries, on this side and the gateway's: apps/gateway/src/validation/command-schema-agreement.spec.ts.
describe('validateCommand', () => {
  it('takes a valid create and names the field of the first problem, as the API does', () => {
    expect(validateCommand('payment-intents.create', create({ amount: '74.00', currency: 'USD', extra: 'allowed on intents' }))).toEqual({ ok: true });
    expect(validateCommand('payment-intents.create', create({ amount: '0.49', currency: 'USD' }))).toEqual({
      ok: false,
      param: 'amount',
      message: 'amount must be at least 0.50',
    });
    expect(validateCommand('payment-intents.create', create({ currency: 'USD' }))).toMatchObject({ ok: false, param: 'amount' });
    expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', customer: { vip: true } }))).toMatchObject({
      ok: false,
      param: 'customer.vip',
      message: 'customer.vip is not an accepted field',
    });
    expect(validateCommand('invoices.create', create({ amount: '1.00', currency: 'USD', extra: 1 }))).toMatchObject({ ok: false, param: 'extra' });
    expect(validateCommand('payment-intents.simulate', { ...scope, id: 'pi_test_1', result: 'maybe' })).toMatchObject({ ok: false, param: 'result' });
    expect(validateCommand('payment-intents.get', { ...scope })).toMatchObject({ ok: false, param: 'id' });
  });

  it('says what type a field must be in words (a null for an optional field included)', () => {
    expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', external_ref: null }))).toEqual({ ok: false, param: 'external_ref', message: 'external_ref must be a string' });
    expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', customer: null }))).toEqual({ ok: false, param: 'customer', message: 'customer must be an object' });
    expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', expires_in: null }))).toEqual({ ok: false, param: 'expires_in', message: 'expires_in must be an integer' });
    expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', methods: null }))).toEqual({ ok: false, param: 'methods', message: 'methods must be an array' });
  });

  it('checks a refund with its own bounds: down to a cent, nothing but amount and reason', () => {
    const refund = (params: Record<string, unknown>) => ({ ...scope, payment_id: '123', idempotency_key: 'k1', params });
    expect(validateCommand('refunds.create', refund({}))).toEqual({ ok: true });
    expect(validateCommand('refunds.create', refund({ amount: '0.01', reason: 'r'.repeat(255) }))).toEqual({ ok: true });
    expect(validateCommand('refunds.create', refund({ amount: '0.00' }))).toEqual({ ok: false, param: 'amount', message: 'amount must be at least 0.01' });
    // Up to a payment's largest, above a session's: a crypto payment is what was received.
    expect(validateCommand('refunds.create', refund({ amount: '1000000.00' }))).toEqual({ ok: true });
    expect(validateCommand('refunds.create', refund({ amount: '99999999999.99' }))).toEqual({ ok: true });
    expect(validateCommand('refunds.create', refund({ amount: '100000000000.00' }))).toMatchObject({ ok: false, param: 'amount' });
    expect(validateCommand('refunds.create', refund({ reason: 'r'.repeat(256) }))).toMatchObject({ ok: false, param: 'reason' });
    expect(validateCommand('refunds.create', refund({ currency: 'USD' }))).toMatchObject({ ok: false, param: 'currency' });
    expect(validateCommand('refunds.create', { ...scope, payment_id: '123', params: {} })).toMatchObject({ ok: false, param: 'idempotency_key' });
  });
});
