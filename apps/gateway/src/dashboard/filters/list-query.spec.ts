import { listQueryString, parseListQuery } from './list-query';

describe('parseListQuery', () => {
  it('turns every filter of a query string into the command fields', () => {
    expect(
      parseListQuery('payment_intents', {
        status: 'succeeded',
        from: '2026-11-01',
        to: '2026-11-30',
        external_ref: ' order-7 ',
        amount_min: '10',
        amount_max: '20.5',
        limit: '50',
        starting_after: 'pi_test_abc',
        lang: 'ar',
      }),
    ).toEqual({
      ok: true,
      fields: {
        status: 'succeeded',
        created_gte: '2026-11-01T00:00:00.000Z',
        // The last day shown is whole: the list stops where the next day begins.
        created_lt: '2026-12-01T00:00:00.000Z',
        external_ref: 'order-7',
        amount_gte: '10.00',
        amount_lte: '20.50',
        limit: 50,
        starting_after: 'pi_test_abc',
      },
    });
  });

  it('leaves blank fields out and uses the default page size', () => {
    expect(parseListQuery('payments', { status: '', from: '', amount: '' })).toEqual({ ok: true, fields: { limit: 25 } });
    expect(parseListQuery('refunds', { payment_id: '42', amount: '5' })).toEqual({ ok: true, fields: { limit: 25, payment_id: '42', amount: '5.00' } });
  });

  it('reads date-times with a zone as given and without one as UTC', () => {
    expect(parseListQuery('invoices', { from: '2026-11-01T10:00:00+02:00', to: '2026-11-02T08:30' })).toEqual({
      ok: true,
      fields: { limit: 25, created_gte: '2026-11-01T08:00:00.000Z', created_lt: '2026-11-02T08:30:00.000Z' },
    });
  });

  it.each([
    ['payment_intents', { status: 'paid' }, 'status'],
    ['invoices', { status: 'succeeded' }, 'status'],
    ['payments', { from: '2026-02-30' }, 'from'],
    ['payments', { to: 'yesterday' }, 'to'],
    ['payments', { from: '2026-11-02', to: '2026-11-01' }, 'to'],
    ['payments', { amount: '12.345' }, 'amount'],
    ['payments', { amount: '-1' }, 'amount'],
    ['payments', { amount: '5', amount_min: '1' }, 'amount'],
    ['payments', { amount_min: '20', amount_max: '10' }, 'amount_min'],
    ['refunds', { external_ref: 'x' }, 'external_ref'],
    ['payments', { payment_id: '1' }, 'payment_id'],
    ['refunds', { payment_id: 'pi_test_x' }, 'payment_id'],
    ['payments', { limit: '0' }, 'limit'],
    ['payments', { limit: '101' }, 'limit'],
    ['payments', { starting_after: 're_x' }, 'starting_after'],
    ['invoices', { starting_after: 'pi_test_x' }, 'starting_after'],
    ['invoices', { external_ref: 'x'.repeat(121) }, 'external_ref'],
    ['invoices', { status: ['pending', 'paid'], amount: { nested: true } }, 'amount'],
  ] as const)('%s refuses %j, naming %s', (kind, query, param) => {
    const parsed = parseListQuery(kind, query as Record<string, unknown>);
    expect(parsed).toEqual({ ok: false, param, message: expect.stringContaining(param) });
  });
});

describe('listQueryString', () => {
  it('keeps the list parameters, applies overrides and drops blanks', () => {
    expect(listQueryString({ status: 'paid', from: '', lang: 'ar', starting_after: 'inv_1' }, { starting_after: 'inv_2' })).toBe('?status=paid&starting_after=inv_2');
    expect(listQueryString({ starting_after: 'inv_1' }, { starting_after: undefined })).toBe('');
  });
});
