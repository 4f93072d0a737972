import { createTestDatabase, type TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { REFUNDS_MIGRATIONS } from '../src/migrations/refunds-schema';
import { RefundsRepository, type NewPayment } from '../src/refunds/refunds.repository';

// A payment's external_ref on the refunds read model (the dashboard filters payments by it): a payment first learnt
// from sessions' lookup has none, and takes it from its event when that arrives; nothing else of the row changes.
describe('payments read model: external_ref', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const repository = new RefundsRepository('refunds');
  const scope = { merchantId: 'mer_ref', environment: 'test' as const };
  const base: NewPayment = {
    id: '7001',
    ...scope,
    source: 'pi_test_ref',
    method: 'togo',
    currency: 'USD',
    amountCents: 1200,
    feeCents: 35,
    netCents: 1165,
    paidAt: new Date('2026-11-01T10:00:00Z'),
    externalRef: null,
  };

  beforeAll(async () => {
    db = await createTestDatabase('refunds_ref');
    dataSource = await db.dataSource('refunds', REFUNDS_MIGRATIONS);
  });

  afterAll(() => db?.drop());

  it('is filled by the event that follows a lookup, once, and found by the filter', async () => {
    await repository.addPayment(dataSource.manager, base);
    expect((await repository.findPayment(dataSource.manager, scope, '7001'))!.externalRef).toBeNull();
    await repository.addPayment(dataSource.manager, { ...base, amountCents: 9999, externalRef: 'order-1' });
    await repository.addPayment(dataSource.manager, { ...base, externalRef: 'order-2' });
    const stored = (await repository.findPayment(dataSource.manager, scope, '7001'))!;
    expect(stored).toMatchObject({ externalRef: 'order-1', amountCents: 1200 });
    const found = await repository.listPayments(dataSource.manager, scope, 10, null, undefined, 'order-1');
    expect(found.items.map((p) => p.id)).toEqual(['7001']);
    expect((await repository.listPayments(dataSource.manager, scope, 10, null, undefined, 'order-2')).items).toEqual([]);
  });
});
