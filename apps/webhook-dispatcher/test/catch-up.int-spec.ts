import { Logger } from '@nestjs/common';
import { createTestDatabase, uniqueName, waitFor, type TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { changed, endpointEvent, intentEvent, newEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';

Logger.overrideLogger(['error']);

// An endpoint's first sight or widening (enabled again, event types added) and a payment event for it stored at
// once, each reading before the other committed, leave the event with no delivery. The instance that saw the
// endpoint sweeps a couple of seconds later, so the merchant's webhook waits seconds, not the sweep's 30 s interval.
describe('the catch-up after an endpoint\'s first sight or widening', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let dispatcher: InProcessDispatcher;

  beforeAll(async () => {
    db = await createTestDatabase('wd_catch_up');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dispatcher = inProcessDispatcher(dataSource, [60_000]);
    // The sweep as the service runs it: every 30 s, and soon after each first sight.
    dispatcher.catchUp.onApplicationBootstrap();
  });

  afterAll(async () => {
    await dispatcher?.catchUp.onModuleDestroy();
    await dispatcher?.sender.close();
    await db?.drop();
  });

  const deliveriesTo = async (endpointId: string) =>
    (await dataSource.query(`SELECT event_id, kind FROM webhooks.deliveries WHERE endpoint_id = $1`, [endpointId])) as Array<{ event_id: string; kind: string }>;

  /** A payment event for a new endpoint, stored while the endpoint's first sight commits (the race). */
  async function raced() {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/never');
    const event = intentEvent(merchant, 'test');
    await dispatcher.receive(event, () => dispatcher.apply(endpointEvent(endpoint)));
    return { endpointId: endpoint.snapshot.id, event };
  }

  it('an event stored while the endpoint was first seen is scheduled seconds later, long before the periodic sweep', async () => {
    const { endpointId, event } = await raced();
    // What the race leaves: the event stored, no delivery of it (neither side saw the other).
    expect(await deliveriesTo(endpointId)).toEqual([]);
    const stored = (await dataSource.query('SELECT count(*)::int AS n FROM webhooks.events WHERE id = $1', [event.id])) as [{ n: number }];
    expect(stored[0].n).toBe(1);

    // The periodic sweep's first turn is 30 s after bootstrap; the one asked for at the first sight comes in ~2 s.
    await waitFor(async () => (await deliveriesTo(endpointId)).length > 0, 10_000, 'the raced event scheduled');
    expect(await deliveriesTo(endpointId)).toEqual([{ event_id: event.id, kind: 'replay' }]);
  });

  it('several first sights close together: each raced event is scheduled once', async () => {
    const races = [await raced(), await raced(), await raced()];
    for (const { endpointId, event } of races) {
      await waitFor(async () => (await deliveriesTo(endpointId)).length > 0, 10_000, 'each raced event scheduled');
      expect(await deliveriesTo(endpointId)).toEqual([{ event_id: event.id, kind: 'replay' }]);
    }
    // Nothing is left for a later sweep.
    expect(await dispatcher.catchUp.sweep()).toBe(0);
  });

  /** An endpoint seen long ago (out of the first-sight sweep's window), taking `events`. */
  async function seenLongAgo(events: string[] | null = null) {
    const merchant = uniqueName('acct');
    const created = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/never', events);
    await dispatcher.apply(endpointEvent(created));
    await dataSource.query(`UPDATE webhooks.endpoints SET first_seen_at = now() - interval '1 day' WHERE id = $1`, [created.snapshot.id]);
    return { merchant, created, endpointId: created.snapshot.id };
  }

  /** An endpoint seen long ago, delivered to, then disabled by the merchant. */
  async function disabledEndpoint() {
    const { merchant, created } = await seenLongAgo();
    const delivered = intentEvent(merchant, 'test');
    await dispatcher.receive(delivered);
    const disabled = changed(created, { status: 'disabled' });
    await dispatcher.apply(endpointEvent(disabled, 'webhook_endpoint.updated'));
    return { merchant, disabled, delivered, endpointId: created.snapshot.id };
  }

  it('an event stored while the endpoint was enabled again is scheduled seconds later; what it had is not sent again', async () => {
    const { merchant, disabled, delivered, endpointId } = await disabledEndpoint();
    const whileDisabled = intentEvent(merchant, 'test');
    await dispatcher.receive(whileDisabled);
    const raced = intentEvent(merchant, 'test');
    await dispatcher.receive(raced, () => dispatcher.apply(endpointEvent(changed(disabled, { status: 'enabled' }), 'webhook_endpoint.updated')));
    // The enabling replayed what came while it was disabled (and the first delivery the disabling ended); the raced
    // event has nothing yet.
    const kinds = async () => (await deliveriesTo(endpointId)).map((d) => `${d.event_id}:${d.kind}`).sort();
    const replayed = [`${delivered.id}:first`, `${delivered.id}:replay`, `${whileDisabled.id}:replay`];
    expect(await kinds()).toEqual([...replayed].sort());

    await waitFor(async () => (await kinds()).includes(`${raced.id}:replay`), 10_000, 'the raced event scheduled');
    expect(await kinds()).toEqual([...replayed, `${raced.id}:replay`].sort());
    expect(await dispatcher.catchUp.sweep()).toBe(0);
  });

  it('an event stamped just before the disabling but stored after it is replayed at the enabling', async () => {
    const { merchant, disabled, endpointId } = await disabledEndpoint();
    // Its transaction began before the disabling and read the endpoint after it: received_at precedes inactive_since.
    const straddling = intentEvent(merchant, 'test');
    await dispatcher.receive(straddling);
    await dataSource.query(
      `UPDATE webhooks.events SET received_at = (SELECT inactive_since FROM webhooks.endpoints WHERE id = $2) - interval '5 seconds' WHERE id = $1`,
      [straddling.id, endpointId],
    );
    expect((await deliveriesTo(endpointId)).some((d) => d.event_id === straddling.id)).toBe(false);
    await dispatcher.apply(endpointEvent(changed(disabled, { status: 'enabled' }), 'webhook_endpoint.updated'));
    expect((await deliveriesTo(endpointId)).filter((d) => d.event_id === straddling.id)).toEqual([{ event_id: straddling.id, kind: 'replay' }]);
  });

  /** An endpoint seen long ago taking only `payment_intent.created`. */
  const narrowEndpoint = () => seenLongAgo(['payment_intent.created']);
  const succeeded = (merchant: string) => intentEvent(merchant, 'test', { type: 'payment_intent.succeeded', sequence: 2 });

  it('event types added: one that occurred after the change but was stored before the dispatcher saw it goes out at once', async () => {
    const { merchant, created, endpointId } = await narrowEndpoint();
    const before = succeeded(merchant); // occurred before the merchant added the type
    await dispatcher.receive(before);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const widened = changed(created, { events: ['payment_intent.created', 'payment_intent.succeeded'] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = succeeded(merchant); // occurred after the change, stored while the dispatcher still had the old filter
    await dispatcher.receive(after);
    expect(await deliveriesTo(endpointId)).toEqual([]);

    await dispatcher.apply(endpointEvent(widened, 'webhook_endpoint.updated'));
    expect(await deliveriesTo(endpointId)).toEqual([{ event_id: after.id, kind: 'replay' }]);
    // A later event of the added type goes out as any first send does.
    const later = succeeded(merchant);
    await dispatcher.receive(later);
    expect((await deliveriesTo(endpointId)).map((d) => `${d.event_id}:${d.kind}`).sort()).toEqual([`${after.id}:replay`, `${later.id}:first`].sort());
  });

  it('event types added: one stored while the change was in flight is scheduled seconds later', async () => {
    const { merchant, created, endpointId } = await narrowEndpoint();
    const widened = changed(created, { events: null });
    const raced = succeeded(merchant);
    await dispatcher.receive(raced, () => dispatcher.apply(endpointEvent(widened, 'webhook_endpoint.updated')));
    expect(await deliveriesTo(endpointId)).toEqual([]);
    await waitFor(async () => (await deliveriesTo(endpointId)).length > 0, 10_000, 'the raced event scheduled');
    expect(await deliveriesTo(endpointId)).toEqual([{ event_id: raced.id, kind: 'replay' }]);
  });

  it('a change that adds no type (a new URL, a type dropped) catches nothing up', async () => {
    const { merchant, created, endpointId } = await seenLongAgo(['payment_intent.created', 'payment_intent.cancelled']);
    await dispatcher.receive(succeeded(merchant));
    await dispatcher.apply(endpointEvent(changed(created, { url: 'http://127.0.0.1:9/elsewhere', events: ['payment_intent.created'] }), 'webhook_endpoint.updated'));
    expect(await deliveriesTo(endpointId)).toEqual([]);
    const [row] = (await dataSource.query('SELECT widened_at FROM webhooks.endpoints WHERE id = $1', [endpointId])) as [{ widened_at: Date | null }];
    expect(row.widened_at).toBeNull();
  });
});
