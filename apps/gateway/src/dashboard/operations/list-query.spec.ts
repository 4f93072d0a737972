import { createdBounds, exportLink, pagingLinks, parseListQuery, type ListShape } from './list-query';
import { listCommand, LISTS, searchTarget } from './operations-lists';
import { BALANCE_TRANSACTIONS_SHAPE, balanceTransactionsCommand } from '../balance/balance-view';

const ID = /^x_[0-9]+$/;
const forward: ListShape = { filters: ['status', 'from', 'to', 'external_ref', 'amount_min', 'amount_max'], choices: ['paid', 'pending'], idPattern: ID, pagesBack: false };
const both: ListShape = { ...forward, pagesBack: true };
const rows = (...ids: string[]) => ids.map((id) => ({ id }));

describe('list filters', () => {
  it('reads only the filters the list offers, each checked; a bad value is reported and left out', () => {
    const read = parseListQuery(forward, { status: 'paid', from: '2026-11-01', to: '2026-11-30', external_ref: ' order-7 ', amount_min: '12.5', payment_id: '123', starting_after: 'x_9' });
    expect(read.filters).toEqual({ status: 'paid', from: '2026-11-01', to: '2026-11-30', external_ref: 'order-7', amount_min: '12.5' });
    expect(read.cursor).toEqual({ starting_after: 'x_9' });
    expect(read.problems).toEqual([]);

    const bad = parseListQuery(forward, { status: 'stolen', from: '2026-02-30', amount_min: '1e3', amount_max: '0', external_ref: 'x'.repeat(121) });
    expect(bad.filters).toEqual({});
    expect(bad.problems).toEqual([
      { field: 'status', problem: 'choice' },
      { field: 'from', problem: 'date' },
      { field: 'external_ref', problem: 'text' },
      { field: 'amount_min', problem: 'amount' },
      { field: 'amount_max', problem: 'amount' },
    ]);
  });

  it('refuses an end before the start and a cursor that is not an id of the list', () => {
    const read = parseListQuery(forward, { from: '2026-11-10', to: '2026-11-01', starting_after: "x_1' or 1=1" });
    expect(read.filters).toEqual({ from: '2026-11-10' });
    expect(read.problems).toEqual([{ field: 'to', problem: 'range' }]);
    expect(read.cursor).toEqual({});
    expect(parseListQuery(forward, { ending_before: 'x_1' }).cursor).toEqual({});
    expect(parseListQuery(both, { ending_before: 'x_1' }).cursor).toEqual({ ending_before: 'x_1' });
  });

  it('refuses an amount range upside down', () => {
    const read = parseListQuery(forward, { amount_min: '20', amount_max: '5.00' });
    expect(read.filters).toEqual({ amount_min: '20' });
    expect(read.problems).toEqual([{ field: 'amount_max', problem: 'range' }]);
  });

  it("turns the filter form of each list into its owner's list command", () => {
    const form = { status: 'succeeded', from: '2026-11-01', to: '2026-11-30', amount_min: '10', amount_max: '20.5', external_ref: 'order-7', starting_after: 'pi_test_abc' };
    const read = parseListQuery(LISTS['payment-intents'].shape, form);
    expect(listCommand('payment_intents', read, 25)).toEqual({
      ok: true,
      fields: {
        status: 'succeeded',
        created_gte: '2026-11-01T00:00:00.000Z',
        created_lt: '2026-12-01T00:00:00.000Z',
        amount_gte: '10.00',
        amount_lte: '20.50',
        external_ref: 'order-7',
        limit: 25,
        starting_after: 'pi_test_abc',
      },
    });
    // The refunds list takes a payment, not an external reference; a value the form refused never reaches the command.
    const refunds = parseListQuery(LISTS.refunds.shape, { status: 'completed', payment_id: '42', external_ref: 'x', amount_min: 'lots' });
    expect(listCommand('refunds', refunds, 25)).toEqual({ ok: true, fields: { status: 'completed', payment_id: '42', limit: 25 } });
    expect(listCommand('invoices', parseListQuery(LISTS.invoices.shape, { status: 'paid' }), 10)).toEqual({ ok: true, fields: { status: 'paid', limit: 10 } });
  });

  it('turns the day range into created bounds, the end day included', () => {
    expect(createdBounds({ from: '2026-11-01', to: '2026-11-30' })).toEqual({ created_gte: '2026-11-01T00:00:00.000Z', created_lt: '2026-12-01T00:00:00.000Z' });
    expect(createdBounds({})).toEqual({});
  });

  it("maps the balance filter form onto the ledger's list command", () => {
    const request = parseListQuery(BALANCE_TRANSACTIONS_SHAPE, { type: 'refund', from: '2026-11-01', ending_before: `txn_${'a'.repeat(24)}` });
    expect(balanceTransactionsCommand({ merchant_id: 'm1', environment: 'live' }, request, 25)).toEqual({
      merchant_id: 'm1',
      environment: 'live',
      limit: 25,
      ending_before: `txn_${'a'.repeat(24)}`,
      type: 'refund',
      created_gte: '2026-11-01T00:00:00.000Z',
    });
  });

  it('offers the refunds list its payment filter, checked as a payment id', () => {
    expect(parseListQuery(LISTS.refunds.shape, { payment_id: '42' }).filters).toEqual({ payment_id: '42' });
    expect(parseListQuery(LISTS.refunds.shape, { payment_id: 'pi_test_x' }).problems).toEqual([{ field: 'payment_id', problem: 'id' }]);
  });
});

describe('paging links', () => {
  const path = '/dashboard/test/payments';
  const filters = { status: 'paid' };

  it('goes forward after the last row and offers the first page once paged, keeping the filters', () => {
    expect(pagingLinks(path, forward, { filters, cursor: {} }, { data: rows('x_9', 'x_8'), has_more: true })).toEqual({ next: `${path}?status=paid&starting_after=x_8` });
    expect(pagingLinks(path, forward, { filters, cursor: { starting_after: 'x_8' } }, { data: rows('x_7'), has_more: false })).toEqual({ first: `${path}?status=paid` });
    expect(pagingLinks(path, forward, { filters: {}, cursor: {} }, { data: rows('x_1'), has_more: false })).toEqual({});
  });

  it('pages back with ending_before where the list can', () => {
    expect(pagingLinks(path, both, { filters: {}, cursor: { starting_after: 'x_8' } }, { data: rows('x_7', 'x_6'), has_more: true })).toEqual({
      next: `${path}?starting_after=x_6`,
      previous: `${path}?ending_before=x_7`,
    });
    // Came back: there is always a next page; has_more says whether there is more before.
    expect(pagingLinks(path, both, { filters: {}, cursor: { ending_before: 'x_7' } }, { data: rows('x_9', 'x_8'), has_more: false })).toEqual({ next: `${path}?starting_after=x_8` });
    expect(pagingLinks(path, both, { filters: {}, cursor: { ending_before: 'x_7' } }, { data: [], has_more: false })).toEqual({ first: path });
  });

  it('exports the filtered list without its cursor', () => {
    expect(exportLink(path, { to: '2026-11-30', status: 'paid' })).toBe(`${path}/export.csv?status=paid&to=2026-11-30`);
  });
});

describe('search by id', () => {
  it("sends an id to its object's page by its shape, in the page's environment", () => {
    expect(searchTarget('test', 'payments', 'pi_test_abc')).toBe('/dashboard/test/payment-intents/pi_test_abc');
    expect(searchTarget('live', 'payments', 'inv_abc')).toBe('/dashboard/live/invoices/inv_abc');
    expect(searchTarget('test', 'payments', `re_${'a'.repeat(24)}`)).toBe(`/dashboard/test/refunds/re_${'a'.repeat(24)}`);
    expect(searchTarget('test', 'refunds', '1234')).toBe('/dashboard/test/payments/1234');
    expect(searchTarget('test', 'invoices', '../../x?y')).toBe('/dashboard/test/invoices/..%2F..%2Fx%3Fy');
  });
});
