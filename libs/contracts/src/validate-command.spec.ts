import { validateCommand } from './validate-command';

const scope = { merchant_id: 'acct_1', environment: 'test' as const };
const create = (params: Record<string, unknown>) => ({ ...scope, idempotency_key: 'k1', merchant: { enabled_methods: ['togo'] }, params });

/** A deliverable-looking address of exactly n characters: a 64-character local part, labels of at most 63. */
function emailOfLength(n: number): string {
  return `${'e'.repeat(64)}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(n - 197)}.com`;
}

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

  it('holds every limit at its boundary and refuses one past it', () => {
    const cases: Array<[string, (n: number) => Record<string, unknown>, number]> = [
      ['external_ref', (n) => ({ external_ref: 'r'.repeat(n) }), 120],
      ['description', (n) => ({ description: 'd'.repeat(n) }), 255],
      ['customer.name', (n) => ({ customer: { name: 'n'.repeat(n) } }), 160],
      ['customer.email', (n) => ({ customer: { email: emailOfLength(n) } }), 254],
      ['customer.phone', (n) => ({ customer: { phone: '1'.repeat(n) } }), 40],
      ['customer.city', (n) => ({ customer: { city: 'c'.repeat(n) } }), 120],
      ['metadata', (n) => ({ metadata: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) }), 50],
    ];
    for (const [param, body, limit] of cases) {
      expect([param, validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', ...body(limit) }))]).toEqual([param, { ok: true }]);
      expect(validateCommand('payment-intents.create', create({ amount: '1.00', currency: 'USD', ...body(limit + 1) }))).toMatchObject({
        ok: false,
        param,
      });
    }
  });
});
