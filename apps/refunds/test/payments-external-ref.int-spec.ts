import { createTestDatabase, type TestDatabase } from '@payments/testing';
import type { DataSource, EntityManager } from 'typeorm';
import { REFUNDS_MIGRATIONS } from '../src/migrations/refunds-schema';
import type { EventEnvelope } from '@payments/events';
import { InboxStore } from '@payments/messaging';
import { PaymentEventsHandler } from '../src/payments/payment-events.handler';
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

  const paymentEvent = (id: string, paymentId: string, amount: string, externalRef: string | null) =>
    ({
      id,
      type: 'payment_intent.succeeded',
      schema_version: 1,
      aggregate_type: 'payment_intent',
      aggregate_id: `pi_test_${paymentId}`,
      sequence: 3,
      merchant_id: scope.merchantId,
      environment: scope.environment,
      occurred_at: '2026-11-02T10:00:00.000Z',
      correlation_id: 'req_1',
      causation_id: null,
      data: { object: { paid_at: '2026-11-02T10:00:00.000Z', external_ref: externalRef }, payment: { id: paymentId, method: 'togo', amount, fee: '0.05', net: '9.95', fee_rate_bps: 50, currency: 'USD' } },
    }) as unknown as EventEnvelope;

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

  it("the consumer's transaction writes its events' payments in one statement, the same rules per payment", async () => {
    const handler = new PaymentEventsHandler(repository);
    await repository.addPayment(dataSource.manager, { ...base, id: '7002' });
    await dataSource.transaction(async (manager) => {
      // A new payment, one known without its ref (it takes it), the same payment twice (written once, its ref kept).
      await handler.handle(paymentEvent('evt_a', '7003', '10.00', null), manager);
      await handler.handle(paymentEvent('evt_b', '7002', '12.00', 'order-7002'), manager);
      await handler.handle(paymentEvent('evt_c', '7004', '10.00', null), manager);
      await handler.handle(paymentEvent('evt_d', '7004', '10.00', 'order-7004'), manager);
      // Nothing written yet: the payments wait for the transaction's one statement.
      expect(await count(manager)).toBe(1);
      await handler.beforeCommit(manager);
      expect(await count(manager)).toBe(3);
    });
    const stored = await Promise.all(['7002', '7003', '7004'].map((id) => repository.findPayment(dataSource.manager, scope, id)));
    expect(stored.map((p) => [p!.id, p!.amountCents, p!.netCents, p!.externalRef, p!.paidAt.toISOString()])).toEqual([
      ['7002', 1200, 1165, 'order-7002', '2026-11-01T10:00:00.000Z'],
      ['7003', 1000, 995, null, '2026-11-02T10:00:00.000Z'],
      ['7004', 1000, 995, 'order-7004', '2026-11-02T10:00:00.000Z'],
    ]);
  });

  it("the consumer's claim writes the payments of the events it lets through, in the same statement", async () => {
    const handler = new PaymentEventsHandler(repository);
    const inbox = new InboxStore('refunds.inbox', 'refunds.payments');
    // evt_old was handled before (a redelivery now): its payment is not written again.
    expect(await inbox.claimWith(dataSource, ['evt_old'], null)).toEqual(new Set(['evt_old']));
    const manager = dataSource.createEntityManager();
    await handler.handle(paymentEvent('evt_old', '7101', '10.00', null), manager);
    await handler.handle(paymentEvent('evt_new', '7102', '12.00', 'order-7102'), manager);
    const writes = handler.claimedWrites(manager);
    expect(await inbox.claimWith(dataSource, ['evt_old', 'evt_new'], writes)).toEqual(new Set(['evt_new']));
    expect(await repository.findPayment(dataSource.manager, scope, '7101')).toBeNull();
    expect(await repository.findPayment(dataSource.manager, scope, '7102')).toMatchObject({ amountCents: 1200, externalRef: 'order-7102' });
    // Taken once: the run's payments are not written again by a later call.
    expect(handler.claimedWrites(manager)).toBeNull();
  });

  it('keeps a crypto payment over-paid past what a session may ask (a payment is what was received)', async () => {
    const handler = new PaymentEventsHandler(repository);
    await dataSource.transaction(async (manager) => {
      await handler.handle(paymentEvent('evt_big', '7201', '1000000.00', null), manager);
      await handler.beforeCommit(manager);
    });
    expect(await repository.findPayment(dataSource.manager, scope, '7201')).toMatchObject({ amountCents: 100_000_000 });
  });

  const count = async (manager: EntityManager) =>
    ((await manager.query(`SELECT count(*)::int AS n FROM refunds.payments WHERE id IN (7002, 7003, 7004)`)) as [{ n: number }])[0].n;
});
