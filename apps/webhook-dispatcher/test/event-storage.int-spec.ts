import { Logger } from '@nestjs/common';
import type { EventEnvelope } from '@payments/events';
import { createTestDatabase, PgCountingProxy, uniqueName, waitFor, type PgTally, type TestDatabase } from '@payments/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { createDispatcher, type Dispatcher } from '../src/webhook-dispatcher.composition';
import { endpointEvent, intentEvent, intentResource, newEndpoint, SECRETS_KEY, type TestEndpoint } from './support/fixtures';
import { createHarness, SCHEMA, type Harness } from './support/harness';

Logger.overrideLogger(['error']);

/**
 * Calls of statements that store events, of those that schedule first sends (now the same statement), and of
 * those that store events with the consumer's inbox claim.
 */
function storageStatements(tally: PgTally): { store: number; schedule: number; withClaim: number } {
  let store = 0;
  let schedule = 0;
  let withClaim = 0;
  for (const [text, n] of tally.statements) {
    if (/INSERT INTO "webhooks"\."events"/.test(text)) store += n;
    if (/INSERT INTO "webhooks"\."deliveries".*'first'/s.test(text)) schedule += n;
    if (/INSERT INTO "webhooks"\."events"/.test(text) && /claimed AS \(INSERT INTO "webhooks"\."inbox"/.test(text)) withClaim += n;
  }
  return { store, schedule, withClaim };
}

/** A connection listening on `channel`, with the payloads it received. */
async function listenFor(url: string, channel: string): Promise<{ received: string[]; end: () => Promise<void> }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const received: string[] = [];
  client.on('notification', (message) => void received.push(message.payload ?? ''));
  await client.query(`LISTEN ${channel}`);
  return { received, end: () => client.end() };
}

/** Listens on a port of its own in front of the machine's Postgres; `url` with that port instead. */
async function proxied(url: string): Promise<{ proxy: PgCountingProxy; url: string }> {
  const proxy = new PgCountingProxy();
  const port = await proxy.start();
  const through = new URL(url);
  through.port = String(port);
  return { proxy, url: through.toString() };
}

/**
 * The merchants of a run: one with two endpoints (one takes every type, one only payment_intent.succeeded), one
 * with an endpoint in the other environment only, and one with none. Answers the endpoints each event must reach.
 */
function mixedMerchants() {
  const a = uniqueName('acct');
  const b = uniqueName('acct');
  const c = uniqueName('acct');
  const url = 'http://127.0.0.1:9/never';
  const every = newEndpoint(a, 'test', url);
  const succeededOnly = newEndpoint(a, 'test', url, ['payment_intent.succeeded']);
  const liveOnly = newEndpoint(b, 'live', url);
  const endpoints: TestEndpoint[] = [every, succeededOnly, liveOnly];
  /** One aggregate for all (one key, so one partition on Kafka and one fetch). */
  const object = intentResource('test');
  const events = (): EventEnvelope<unknown>[] => [
    intentEvent(a, 'test', { object }),
    intentEvent(b, 'test', { object }),
    intentEvent(a, 'test', { type: 'payment_intent.succeeded', sequence: 2, object }),
    intentEvent(c, 'test', { object }),
    intentEvent(b, 'live', { object }),
    intentEvent(c, 'test', { type: 'payment_intent.succeeded', sequence: 2, object }),
    intentEvent(a, 'test', { type: 'payment_intent.cancelled', sequence: 3, object }),
    intentEvent(b, 'live', { type: 'payment_intent.succeeded', sequence: 2, object }),
  ];
  const expected = (event: EventEnvelope<unknown>): string[] =>
    endpoints
      .filter((e) => e.snapshot.merchant_id === event.merchant_id && e.snapshot.environment === event.environment)
      .filter((e) => e.snapshot.events === null || e.snapshot.events.includes(event.type))
      .map((e) => e.snapshot.id)
      .sort();
  return { endpoints, events, expected };
}

// A run of public events is stored, and its first sends scheduled, in one statement: through Kafka, the statement of
// the consumer's inbox claim, with no transaction around it. One statement per event cost Postgres a parse and a
// round trip each; BEGIN and COMMIT were two more per run.
describe('public events stored per transaction', () => {
  describe('in process', () => {
    let db: TestDatabase;
    let proxy: PgCountingProxy;
    let dataSource: DataSource;
    let dispatcher: Dispatcher;

    beforeAll(async () => {
      db = await createTestDatabase('wd_storage');
      await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
      const through = await proxied(db.url);
      proxy = through.proxy;
      dataSource = new DataSource({ type: 'postgres', url: through.url, schema: 'webhooks', logging: false, extra: { max: 2 } });
      await dataSource.initialize();
      dispatcher = createDispatcher(dataSource, {
        schema: 'webhooks',
        sender: { timeoutMs: 5000, allowInsecure: true },
        delivery: { userAgent: 'PaymentsWebhooks/1.0', retryScheduleMs: [60_000], disableAfterMs: 5 * 24 * 3600 * 1000, secretsKey: SECRETS_KEY, eventsTopic: 'test.webhooks.events.v1' },
        eventRetentionDays: 30,
      });
    });

    afterAll(async () => {
      await dispatcher?.sender.close();
      if (dataSource?.isInitialized) await dataSource.destroy();
      await proxy?.stop();
      await db?.drop();
    });

    /** Handles `envelopes` in one transaction as the consumer does (each, then beforeCommit); answers the outcomes and the statements. */
    async function run(envelopes: EventEnvelope<unknown>[]) {
      proxy.reset();
      proxy.counting = true;
      const outcomes = await dataSource.transaction(async (manager) => {
        for (const envelope of envelopes) await dispatcher.publicEvents.handle(envelope as EventEnvelope, manager);
        return dispatcher.publicEvents.beforeCommit(manager);
      });
      proxy.counting = false;
      return { outcomes, statements: storageStatements(proxy.tally), total: [...proxy.tally.statements.values()].reduce((s, n) => s + n, 0) };
    }

    it('stores a run of events of mixed merchants and schedules each first send once, in one statement that wakes the workers', async () => {
      const { endpoints, events, expected } = mixedMerchants();
      for (const endpoint of endpoints) await dataSource.transaction((manager) => dispatcher.endpointEvents.handle(endpointEvent(endpoint) as unknown as EventEnvelope, manager));
      const batch = events();
      const listener = await listenFor(db.url, 'webhooks_deliveries');

      const first = await run(batch);
      // START TRANSACTION, the statement storing the events and their deliveries, COMMIT.
      expect(first.statements).toEqual({ store: 1, schedule: 1, withClaim: 0 });
      expect(first.total).toBe(3);
      // One wake-up for the run's deliveries, however many rows.
      await waitFor(async () => listener.received.length > 0, 5000, 'the workers woken');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(listener.received).toHaveLength(1);
      await listener.end();
      for (const event of batch) expect(first.outcomes.get(event.id)).toEqual({ stored: true, deliveries: expected(event).length });
      const rows = (await dataSource.query(`SELECT event_id, endpoint_id, kind FROM webhooks.deliveries WHERE event_id = ANY($1::text[])`, [batch.map((e) => e.id)])) as Array<{
        event_id: string;
        endpoint_id: string;
        kind: string;
      }>;
      for (const event of batch) {
        expect(rows.filter((r) => r.event_id === event.id).map((r) => r.endpoint_id).sort()).toEqual(expected(event));
      }
      expect(rows.every((r) => r.kind === 'first')).toBe(true);
      const stored = (await dataSource.query(`SELECT id FROM webhooks.events WHERE id = ANY($1::text[]) ORDER BY received_at, id`, [batch.map((e) => e.id)])) as unknown[];
      // Events nobody takes are stored too (catch-up, resends and replays read them).
      expect(stored).toHaveLength(batch.length);

      // The same events again (another consumer's inbox, a replayed topic) with one new one: only the new one is
      // stored and scheduled, still in one statement each.
      const fresh = intentEvent(endpoints[0]!.snapshot.merchant_id, 'test');
      const again = await run([...batch, fresh]);
      expect(again.statements).toEqual({ store: 1, schedule: 1, withClaim: 0 });
      for (const event of batch) expect(again.outcomes.get(event.id)).toEqual({ stored: false, deliveries: 0 });
      expect(again.outcomes.get(fresh.id)).toEqual({ stored: true, deliveries: 1 });
      const [{ n }] = (await dataSource.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = ANY($1::text[])`, [batch.map((e) => e.id)])) as [{ n: number }];
      expect(n).toBe(rows.length);
    });

    it('stores a run of endpoint-less merchants in one statement, schedules nothing and wakes nobody', async () => {
      const events = [intentEvent(uniqueName('acct'), 'test'), intentEvent(uniqueName('acct'), 'live'), intentEvent(uniqueName('acct'), 'test')];
      const listener = await listenFor(db.url, 'webhooks_deliveries');
      const { outcomes, statements, total } = await run(events);
      expect(statements).toEqual({ store: 1, schedule: 1, withClaim: 0 });
      expect(total).toBe(3);
      for (const event of events) expect(outcomes.get(event.id)).toEqual({ stored: true, deliveries: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(listener.received).toEqual([]);
      await listener.end();
    });
  });

  describe('through Kafka', () => {
    let h: Harness;
    let proxy: PgCountingProxy;

    beforeAll(async () => {
      h = await createHarness('wd_storage_kafka');
      const through = await proxied(h.db.url);
      proxy = through.proxy;
      await h.startDispatcher({ DATABASE_URL: through.url });
    }, 120_000);

    afterAll(async () => {
      await h?.close();
      await proxy?.stop();
    });

    it('stores a fetched run with its inbox claim in one statement, each first send scheduled once per endpoint', async () => {
      const { endpoints, events, expected } = mixedMerchants();
      for (const endpoint of endpoints) await h.configure(endpoint);
      const batch = events();
      proxy.reset();
      proxy.counting = true;
      // Published together with one key: one partition, fetched together. Then again, as a redelivery would.
      await h.publish('sessions', batch);
      for (const event of batch) await h.handled(event.id);
      await h.publish('sessions', batch);
      const marker = intentEvent(uniqueName('acct'), 'test', { object: intentResource('test') });
      await h.publish('sessions', [marker]);
      await h.handled(marker.id);
      proxy.counting = false;

      const { store, schedule, withClaim } = storageStatements(proxy.tally);
      // One per event would be batch.length + 1; a fetch may split once, and the marker is a run of its own. Each
      // is the run's inbox claim, its events and their deliveries in one statement.
      expect(store).toBeLessThanOrEqual(3);
      expect(withClaim).toBe(store);
      expect(schedule).toBe(store);
      const delivered = (await h.query(`SELECT id FROM ${SCHEMA}.deliveries WHERE event_id = ANY($1::text[])`, [batch.map((e) => e.id)])) as Array<{ id: string }>;
      // Ids drawn in Postgres look like the service's own, and differ.
      expect(delivered.length).toBeGreaterThan(1);
      for (const { id } of delivered) expect(id).toMatch(/^wd_[0-9A-Za-z]{24}$/);
      expect(new Set(delivered.map((row) => row.id)).size).toBe(delivered.length);
      for (const event of batch) {
        const rows = await h.deliveriesOf(event.id);
        expect(rows.filter((r) => r.kind === 'first').map((r) => r.endpoint_id).sort()).toEqual(expected(event));
      }
      await waitFor(async () => (await h.query(`SELECT 1 FROM ${SCHEMA}.events WHERE id = $1`, [marker.id])).length === 1, 5000, 'the marker stored');
      expect(await h.query(`SELECT id FROM ${SCHEMA}.events WHERE id = ANY($1::text[])`, [batch.map((e) => e.id)])).toHaveLength(batch.length);
    });
  });
});
