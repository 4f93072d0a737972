import type { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import { createTestDatabase, uniqueName, waitFor, type RunningService, type TestDatabase } from '@payments/testing';
import type { PoolClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { CommandResultsRepository } from '../src/deliveries/command-results.repository';
import { CATCH_UP_SWEEP_LOCK, CatchUpSweep } from '../src/endpoints/catch-up.sweep';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { endpointEvent, intentEvent, invoicePaidEvent, newEndpoint } from './support/fixtures';
import { createHarness, type Harness } from './support/harness';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';
import { startReceiver, type Behaviour, type TestReceiver } from './support/receiver';

Logger.overrideLogger(['error']);

// A delivery's lease is short (2 s) and renewed by the living instance while its attempt runs (up to the 10 s
// timeout): an attempt outlasting the lease stays with its instance, and a killed instance's deliveries go out
// from the survivor seconds after the kill, not when a lease sized for the whole attempt would have ended.
describe('delivery leases with two dispatcher instances', () => {
  let h: Harness;
  const receivers: TestReceiver[] = [];

  beforeAll(async () => {
    h = await createHarness('wd_leases');
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
  });

  async function endpointFor(options: { handlerDelayMs?: number; behaviour?: Behaviour }) {
    const endpoint = newEndpoint(uniqueName('acct'), 'test', 'http://127.0.0.1:9/later');
    const receiver = await startReceiver({ secret: endpoint.secret, ...options });
    receivers.push(receiver);
    endpoint.snapshot.url = receiver.url;
    await h.configure(endpoint);
    return { merchant: endpoint.snapshot.merchant_id, receiver };
  }

  /** Two instances with the production timeout and lease, each signing its requests with its own User-Agent. */
  async function twoInstances(): Promise<Record<string, RunningService>> {
    const [a, b] = await Promise.all([h.startDispatcher({ WEBHOOK_USER_AGENT: 'InstanceA/1.0' }), h.startDispatcher({ WEBHOOK_USER_AGENT: 'InstanceB/1.0' })]);
    return { 'InstanceA/1.0': a, 'InstanceB/1.0': b };
  }

  it('an instance killed during an attempt: the survivor sends the delivery seconds later, long before the attempt could have timed out', async () => {
    const instances = await twoInstances();
    // The first request is held open: its instance dies while the endpoint has not answered.
    const { merchant, receiver } = await endpointFor({ behaviour: (n) => (n === 1 ? 'hang' : 'receive') });
    const event = invoicePaidEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    await waitFor(() => receiver.open() > 0, 30_000, 'the attempt in flight');
    const sender = String(receiver.requests[0]!.headers['user-agent']);
    const [survivor] = Object.keys(instances).filter((agent) => agent !== sender);
    await instances[sender]!.kill();

    // A lease that had to outlast the attempt ran at least the timeout + 5 s (15 s) from the claim, which came
    // before the kill; a renewed lease lapses within 2 s of it. Generous: this bounds behaviour, not speed.
    await waitFor(() => receiver.handled.length === 1, 12_000, 'the delivery from the survivor within 12 s of the kill');
    expect(receiver.handled[0]!.webhook.id).toBe(event.id);
    expect(receiver.handled[0]!.headers['user-agent']).toBe(survivor);
    const [delivery] = await h.settled(event.id);
    // One attempt recorded: the killed instance's was never answered, so only the survivor's counts.
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    await instances[survivor!]!.stop();
  }, 120_000);

  it('an attempt longer than the lease stays with its living instance: each event is sent once', async () => {
    const instances = await twoInstances();
    // Each answer takes twice the 2 s lease; the other instance polls every 100 ms and would take over a lapsed lease.
    const { merchant, receiver } = await endpointFor({ handlerDelayMs: 4000 });
    const events = Array.from({ length: 4 }, () => invoicePaidEvent(merchant, 'test'));
    await h.publish('sessions', events);
    await waitFor(() => receiver.handled.length === events.length, 60_000, 'every event');
    for (const event of events) expect(await h.settled(event.id)).toEqual([expect.objectContaining({ status: 'succeeded', attempt_count: 1 })]);
    expect(receiver.requests.length).toBe(events.length);
    expect(receiver.maxConcurrentPerEvent()).toBe(1);
    await Promise.all(Object.values(instances).map((instance) => instance.stop()));
  }, 120_000);
});

// The renewal statement itself, in process on a real database.
describe('renewing delivery leases', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let dispatcher: InProcessDispatcher;

  beforeAll(async () => {
    db = await createTestDatabase('wd_lease_renewal');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dispatcher = inProcessDispatcher(dataSource, [60_000]);
  });

  afterAll(async () => {
    await dispatcher?.sender.close();
    await db?.drop();
  });

  const lockedUntil = async (id: string) =>
    ((await dataSource.query('SELECT locked_until FROM webhooks.deliveries WHERE id = $1', [id])) as Array<{ locked_until: Date }>)[0]!.locked_until;

  it('extends only the leases still held under their token, and a taken-over attempt records nothing', async () => {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/never');
    await dispatcher.apply(endpointEvent(endpoint));
    for (let i = 0; i < 3; i += 1) await dispatcher.receive(intentEvent(merchant, 'test'));
    const claimed = await dispatcher.deliveries.claim({ limit: 3, perEndpoint: 3, degradedPerEndpoint: 1, degradedFree: 1, busy: new Map(), leaseMs: 1000 });
    expect(claimed).toHaveLength(3);
    const [kept, takenOver, finished] = claimed as [(typeof claimed)[0], (typeof claimed)[0], (typeof claimed)[0]];
    const before = await lockedUntil(kept.id);

    // Another instance took one over after its lease lapsed; another attempt was recorded meanwhile.
    await dataSource.query(`UPDATE webhooks.deliveries SET lease_token = 'another instance' WHERE id = $1`, [takenOver.id]);
    await dataSource.query(`UPDATE webhooks.deliveries SET status = 'succeeded', next_attempt_at = NULL, locked_until = NULL, lease_token = NULL WHERE id = $1`, [finished.id]);
    const takenOverUntil = await lockedUntil(takenOver.id);

    const renewed = await dispatcher.deliveries.renewLeases(
      claimed.map((c) => c.id),
      claimed.map((c) => c.leaseToken),
      5000,
    );
    expect(renewed).toEqual([kept.id]);
    expect((await lockedUntil(kept.id)).getTime()).toBeGreaterThan(before.getTime() + 3000);
    expect(await lockedUntil(takenOver.id)).toEqual(takenOverUntil);
    expect(await lockedUntil(finished.id)).toBeNull();

    // The first owner's attempt ends (the endpoint refuses the connection): it is history, the new owner's state stands.
    expect(await dispatcher.runner.run(takenOver)).toBe('lease_lost');
    const [row] = (await dataSource.query('SELECT status, attempt_count, lease_token FROM webhooks.deliveries WHERE id = $1', [takenOver.id])) as Array<Record<string, unknown>>;
    expect(row).toEqual({ status: 'pending', attempt_count: 0, lease_token: 'another instance' });
  });

  it('skips a row another transaction holds instead of waiting for it', async () => {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/never');
    await dispatcher.apply(endpointEvent(endpoint));
    await dispatcher.receive(intentEvent(merchant, 'test'));
    const [claimed] = await dispatcher.deliveries.claim({ limit: 1, perEndpoint: 1, degradedPerEndpoint: 1, degradedFree: 1, busy: new Map(), leaseMs: 1000 });
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SELECT 1 FROM webhooks.deliveries WHERE id = $1 FOR UPDATE', [claimed!.id]);
      expect(await dispatcher.deliveries.renewLeases([claimed!.id], [claimed!.leaseToken], 5000)).toEqual([]);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    expect(await dispatcher.deliveries.renewLeases([claimed!.id], [claimed!.leaseToken], 5000)).toEqual([claimed!.id]);
  });
});

// The dispatcher's other claims are tied to a Postgres transaction: a command's claim of its id (the row it
// inserts before doing the work) and the catch-up sweep's advisory lock. A killed instance's connection is closed
// by its kernel; Postgres ends the transaction and frees the claim at once.
describe('claims held by a transaction die with their connection', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let dispatcher: InProcessDispatcher;

  beforeAll(async () => {
    db = await createTestDatabase('wd_tx_claims');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dispatcher = inProcessDispatcher(dataSource, [60_000]);
  });

  afterAll(async () => {
    await dispatcher?.sender.close();
    await db?.drop();
  });

  /** A transaction on its own connection, and a way to drop that connection as a killed process's kernel does. */
  async function doomedTransaction(): Promise<{ manager: EntityManager; die(): void }> {
    const runner = dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    await runner.startTransaction();
    // Errors of the dropped connection are expected; the pool discards the client.
    client.on('error', () => undefined);
    return { manager: runner.manager, die: () => (client.connection as unknown as { stream: Socket }).stream.destroy() };
  }

  it('a command whose instance died mid-work: the same command on another instance goes ahead', async () => {
    const commandResults = new CommandResultsRepository(dispatcher.webhooks.table('command_results'));
    const origin = { merchantId: uniqueName('acct'), environment: 'test', commandId: uniqueName('key'), fingerprint: 'deliveries.resend {}' };
    const doomed = await doomedTransaction();
    let started!: () => void;
    const claimed = new Promise<void>((resolve) => (started = resolve));
    // The first instance claims the id and never finishes its work.
    void commandResults.once(doomed.manager, origin, () => (started(), new Promise<never>(() => undefined))).catch(() => undefined);
    await claimed;
    // The same command on another instance waits on that claim ...
    const second = dataSource.transaction((manager) => commandResults.once(manager, origin, async () => 'done by the survivor'));
    const first = await Promise.race([second, new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
    expect(first).toBe('waiting');
    // ... until the first instance dies: its transaction, and the claim with it, are gone.
    doomed.die();
    await expect(second).resolves.toBe('done by the survivor');
  });

  it('the catch-up sweep of an instance that died mid-sweep: another instance sweeps at its next turn', async () => {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/never');
    await dispatcher.apply(endpointEvent(endpoint));
    const event = intentEvent(merchant, 'test');
    await dispatcher.receive(event);
    // What the race around an endpoint's first sight leaves: the event stored, no delivery of it.
    await dataSource.query('DELETE FROM webhooks.deliveries WHERE event_id = $1', [event.id]);
    const sweep = new CatchUpSweep(dispatcher.webhooks, dispatcher.deliveries);

    const doomed = await doomedTransaction();
    const [{ locked }] = (await doomed.manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [CATCH_UP_SWEEP_LOCK])) as [{ locked: boolean }];
    expect(locked).toBe(true);
    expect(await sweep.sweep()).toBe(0);
    doomed.die();
    await waitFor(async () => (await sweep.sweep()) === 1, 5_000, 'a sweep once the dead sweeper\'s lock is gone');
  });
});
