import { Logger } from '@nestjs/common';
import { createTestDatabase, uniqueName, type TestDatabase } from '@payments/testing';
import type { EventEnvelope } from '@payments/events';
import type { DataSource } from 'typeorm';
import type { DeliveriesRepository } from '../src/deliveries/deliveries.repository';
import type { DeliveryRunner } from '../src/deliveries/delivery.runner';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { changed, endpointEvent, intentEvent, newEndpoint, type TestEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';
import { startReceiver, type TestReceiver } from './support/receiver';

Logger.overrideLogger(['error']);

// The dispatcher's parts in process on a real database (no Kafka): an endpoint that keeps failing for the
// disable period is disabled, its merchant gets a notification row, its pending deliveries end, and enabling
// it again replays them.
describe('endpoint health', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let deliveries: DeliveriesRepository;
  let runner: DeliveryRunner;
  let dispatcher: InProcessDispatcher;
  let receiver: TestReceiver;

  beforeAll(async () => {
    db = await createTestDatabase('wd_health');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dispatcher = inProcessDispatcher(dataSource, [60_000, 60_000]);
    ({ deliveries, runner } = dispatcher);
  });

  afterAll(async () => {
    await receiver?.close();
    await dispatcher?.sender.close();
    await db?.drop();
  });

  const apply = (envelope: EventEnvelope<unknown>) => dispatcher.apply(envelope);
  const receive = (envelope: EventEnvelope<unknown>) => dispatcher.receive(envelope);
  const rows = <T>(sql: string, params: unknown[] = []) => dataSource.query(sql, params) as Promise<T[]>;

  /** Claims and runs every due delivery once. */
  async function runDue(): Promise<string[]> {
    const claimed = await deliveries.claim({ limit: 50, perEndpoint: 10, degradedPerEndpoint: 10, degradedFree: 50, busy: new Map(), leaseMs: 30_000 });
    return Promise.all(claimed.map((c) => runner.run(c)));
  }

  it('disables an endpoint failing for 5 days, tells the merchant, and replays its deliveries when it is enabled again', async () => {
    const merchant = uniqueName('acct');
    let endpoint: TestEndpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    receiver = await startReceiver({ secret: endpoint.secret, behaviour: () => ({ status: 500 }) });
    endpoint.snapshot.url = receiver.url;
    expect(await apply(endpointEvent(endpoint))).toBe('applied');

    const first = intentEvent(merchant, 'test');
    expect(await receive(first)).toEqual({ stored: true, deliveries: 1 });
    expect(await runDue()).toEqual(['retry']);
    const [{ failing_since }] = await rows<{ failing_since: Date }>('SELECT failing_since FROM webhooks.endpoints WHERE id = $1', [endpoint.snapshot.id]);
    expect(failing_since).toBeInstanceOf(Date);

    // Four days later it still fails: not yet disabled.
    await dataSource.query(`UPDATE webhooks.endpoints SET failing_since = now() - interval '4 days' WHERE id = $1`, [endpoint.snapshot.id]);
    const second = intentEvent(merchant, 'test');
    await receive(second);
    expect(await runDue()).toEqual(['retry']);
    expect((await rows<{ auto_disabled_at: Date | null }>('SELECT auto_disabled_at FROM webhooks.endpoints WHERE id = $1', [endpoint.snapshot.id]))[0]!.auto_disabled_at).toBeNull();

    // Five days of failures without a success: disabled, merchant told, pending deliveries ended.
    await dataSource.query(`UPDATE webhooks.endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`, [endpoint.snapshot.id]);
    const third = intentEvent(merchant, 'test');
    await receive(third);
    expect(await runDue()).toEqual(['retry']);
    const [state] = await rows<{ auto_disabled_reason: string | null }>('SELECT auto_disabled_reason FROM webhooks.endpoints WHERE id = $1', [endpoint.snapshot.id]);
    expect(state!.auto_disabled_reason).toBe('failing');
    const notes = await rows<{ kind: string; payload: { reason: string } }>('SELECT kind, payload FROM webhooks.notifications WHERE endpoint_id = $1', [endpoint.snapshot.id]);
    expect(notes).toEqual([{ kind: 'webhook_endpoint.disabled', payload: expect.objectContaining({ reason: 'failing', failing_since: expect.any(String) }) }]);
    // The gateway learns of it from the dispatcher's event, stamped with the endpoint version it acted on.
    const published = await rows<{ topic: string; payload: EventEnvelope }>(
      "SELECT topic, payload::jsonb AS payload FROM webhooks.outbox WHERE payload::jsonb->>'aggregate_id' = $1",
      [endpoint.snapshot.id],
    );
    expect(published).toEqual([
      {
        topic: 'test.webhooks.events.v1',
        payload: expect.objectContaining({
          type: 'webhook_endpoint.auto_disabled',
          sequence: endpoint.sequence,
          merchant_id: merchant,
          data: { reason: 'failing', disabled_at: expect.any(String) },
        }),
      },
    ]);
    const statuses = await rows<{ event_id: string; status: string; failure_reason: string | null }>(
      'SELECT event_id, status, failure_reason FROM webhooks.deliveries WHERE endpoint_id = $1 ORDER BY created_at',
      [endpoint.snapshot.id],
    );
    expect(statuses.map((s) => [s.status, s.failure_reason])).toEqual([
      ['failed', 'endpoint_failing'],
      ['failed', 'endpoint_failing'],
      ['failed', 'endpoint_failing'],
    ]);
    // While disabled, new events make no deliveries.
    const whileDisabled = intentEvent(merchant, 'test');
    expect(await receive(whileDisabled)).toEqual({ stored: true, deliveries: 0 });

    // Enabled again (the gateway's next version): everything not delivered since the failing began is replayed.
    receiver.setBehaviour(() => 'receive');
    endpoint = changed(endpoint, { status: 'enabled' });
    expect(await apply(endpointEvent(endpoint, 'webhook_endpoint.updated'))).toBe('applied');
    expect(await runDue()).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(receiver.handled.map((e) => e.webhook.id).sort()).toEqual([first.id, second.id, third.id, whileDisabled.id].sort());
    const [healthy] = await rows<{ failing_since: Date | null; auto_disabled_at: Date | null }>(
      'SELECT failing_since, auto_disabled_at FROM webhooks.endpoints WHERE id = $1',
      [endpoint.snapshot.id],
    );
    expect(healthy).toEqual({ failing_since: null, auto_disabled_at: null });
  });

  it('an endpoint moved to another address starts without the old address\'s failing streak; other changes keep it', async () => {
    const merchant = uniqueName('acct');
    let endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/old');
    await apply(endpointEvent(endpoint));
    const id = endpoint.snapshot.id;
    const failingSince = async () => (await rows<{ failing_since: Date | null }>('SELECT failing_since FROM webhooks.endpoints WHERE id = $1', [id]))[0]!.failing_since;
    // Five days of failures at the old address: its next failure there would disable the endpoint.
    await dataSource.query(`UPDATE webhooks.endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`, [id]);
    // A change that keeps the address (types narrowed) keeps the streak.
    endpoint = changed(endpoint, { events: ['payment_intent.created'] });
    await apply(endpointEvent(endpoint, 'webhook_endpoint.updated'));
    expect(await failingSince()).toBeInstanceOf(Date);
    // The new address is judged on its own: one failure there starts a streak, it does not disable the endpoint.
    endpoint = changed(endpoint, { url: 'http://127.0.0.1:9/new', events: null });
    await apply(endpointEvent(endpoint, 'webhook_endpoint.updated'));
    expect(await failingSince()).toBeNull();
    const failing = await startReceiver({ secret: endpoint.secret, behaviour: () => ({ status: 502 }) });
    try {
      endpoint = changed(endpoint, { url: failing.url });
      await apply(endpointEvent(endpoint, 'webhook_endpoint.updated'));
      await receive(intentEvent(merchant, 'test'));
      expect(await runDue()).toEqual(['retry']);
      const [state] = await rows<{ failing_since: Date; auto_disabled_at: Date | null }>('SELECT failing_since, auto_disabled_at FROM webhooks.endpoints WHERE id = $1', [id]);
      expect(state!.auto_disabled_at).toBeNull();
      expect(Date.now() - state!.failing_since.getTime()).toBeLessThan(60_000);
    } finally {
      await failing.close();
    }
  });

  it("a success ends the failing streak, a test event's does not, and one recorded after its lease was lost changes nothing", async () => {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    const answering = await startReceiver({ secret: endpoint.secret, behaviour: () => 'receive' });
    endpoint.snapshot.url = answering.url;
    await apply(endpointEvent(endpoint));
    const id = endpoint.snapshot.id;
    const failingSince = async () => (await rows<{ failing_since: Date | null }>('SELECT failing_since FROM webhooks.endpoints WHERE id = $1', [id]))[0]!.failing_since;
    const stillFailing = () => dataSource.query(`UPDATE webhooks.endpoints SET failing_since = now() - interval '1 hour' WHERE id = $1`, [id]);
    try {
      // A test event answers "does it work now": its success leaves the streak alone.
      await stillFailing();
      const event = intentEvent(merchant, 'test');
      await receive(event);
      await dataSource.query(`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = $1`, [id]);
      await dataSource.transaction((manager) => deliveries.schedule(manager, id, [event.id], 'test'));
      expect(await runDue()).toEqual(['succeeded']);
      expect(await failingSince()).toBeInstanceOf(Date);

      // A delivery's success ends it.
      await receive(intentEvent(merchant, 'test'));
      expect(await runDue()).toEqual(['succeeded']);
      expect(await failingSince()).toBeNull();

      // Another instance took the delivery over (its lease ran out): the attempt stays as history, nothing else moves.
      await stillFailing();
      await receive(intentEvent(merchant, 'test'));
      const [claimed] = await deliveries.claim({ limit: 1, perEndpoint: 1, degradedPerEndpoint: 1, degradedFree: 1, busy: new Map(), leaseMs: 30_000 });
      await dataSource.query(`UPDATE webhooks.deliveries SET lease_token = 'another instance' WHERE id = $1`, [claimed!.id]);
      expect(await runner.run(claimed!)).toBe('lease_lost');
      const [delivery] = await rows<{ status: string; attempt_count: number; attempts: number }>(
        `SELECT d.status, d.attempt_count, (SELECT count(*)::int FROM webhooks.attempts a WHERE a.delivery_id = d.id) AS attempts
         FROM webhooks.deliveries d WHERE d.id = $1`,
        [claimed!.id],
      );
      expect(delivery).toEqual({ status: 'pending', attempt_count: 0, attempts: 1 });
      expect(await failingSince()).toBeInstanceOf(Date);
    } finally {
      await dataSource.query(`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
      await answering.close();
    }
  });

  it('a deleted endpoint gets nothing more and its pending deliveries end', async () => {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', receiver.url);
    await apply(endpointEvent(endpoint));
    const event = intentEvent(merchant, 'test');
    await receive(event);
    await apply(endpointEvent(changed(endpoint, { status: 'disabled' }), 'webhook_endpoint.deleted'));
    const [delivery] = await rows<{ status: string; failure_reason: string }>('SELECT status, failure_reason FROM webhooks.deliveries WHERE event_id = $1', [event.id]);
    expect(delivery).toEqual({ status: 'failed', failure_reason: 'endpoint_deleted' });
    expect(await receive(intentEvent(merchant, 'test'))).toEqual({ stored: true, deliveries: 0 });
    expect(await runDue()).toEqual([]);
  });

  it('claims: a failing endpoint gets fewer slots, and none once failing endpoints used their share', async () => {
    const merchant = uniqueName('acct');
    const failing = newEndpoint(merchant, 'test', receiver.url);
    const healthy = newEndpoint(merchant, 'test', receiver.url);
    await apply(endpointEvent(failing));
    await apply(endpointEvent(healthy));
    await dataSource.query(`UPDATE webhooks.endpoints SET failing_since = now() WHERE id = $1`, [failing.snapshot.id]);
    for (let i = 0; i < 3; i += 1) await receive(intentEvent(merchant, 'test'));
    const claim = (degradedFree: number, busy = new Map<string, number>()) =>
      deliveries.claim({ limit: 50, perEndpoint: 4, degradedPerEndpoint: 1, degradedFree, busy, leaseMs: 30_000 });

    const none = await claim(0);
    expect(none.map((c) => c.endpoint.id)).toEqual([healthy.snapshot.id, healthy.snapshot.id, healthy.snapshot.id]);
    expect(none.every((c) => !c.degraded)).toBe(true);
    const one = await claim(5);
    expect(one.map((c) => [c.endpoint.id, c.degraded])).toEqual([[failing.snapshot.id, true]]);
    // Its one slot is taken (busy, 0 free): nothing more of it; the leased ones are not due again.
    expect(await claim(5, new Map([[failing.snapshot.id, 0]]))).toEqual([]);
    await dataSource.query(`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id IN ($1, $2)`, [
      failing.snapshot.id,
      healthy.snapshot.id,
    ]);
  });
});
