import { Logger } from '@nestjs/common';
import { createTestDatabase, uniqueName, waitFor, type TestDatabase } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { endpointEvent, intentEvent, newEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';

Logger.overrideLogger(['error']);

// An endpoint's first sight and a payment event for it stored at once, each reading before the other committed,
// leave the event with no delivery. The instance that saw the endpoint sweeps a couple of seconds later, so the
// merchant's first webhook waits seconds, not the sweep's 30 s interval.
describe('the catch-up after an endpoint\'s first sight', () => {
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
});
