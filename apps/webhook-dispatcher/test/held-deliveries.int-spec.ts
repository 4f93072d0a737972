import { Logger } from '@nestjs/common';
import { createTestDatabase, uniqueName, waitFor, type TestDatabase } from '@payments/testing';
import type { EventEnvelope } from '@payments/events';
import type { DataSource } from 'typeorm';
import { claimSql, releaseRecoveredSql, type ClaimRequest, type DeliveriesRepository } from '../src/deliveries/deliveries.repository';
import type { DeliveryRunner } from '../src/deliveries/delivery.runner';
import { DeliveryWorker } from '../src/deliveries/delivery.worker';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import type { WebhooksDatabase } from '../src/shared/webhooks-database';
import { endpointEvent, intentEvent, newEndpoint, type TestEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';
import { startReceiver, type TestReceiver } from './support/receiver';

Logger.overrideLogger(['error']);

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan read from `relation` (returned or filtered out), over every scan of it. */
function rowsRead(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

// A failing endpoint's deliveries wait in its own queue ("held"), so a dead endpoint's backlog neither fills
// the shared queue nor costs each claim a scan past it; a success puts them back.
describe('held deliveries', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let webhooks: WebhooksDatabase;
  let deliveries: DeliveriesRepository;
  let runner: DeliveryRunner;
  let dispatcher: InProcessDispatcher;
  const receivers: TestReceiver[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('wd_held');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dispatcher = inProcessDispatcher(dataSource, [60_000, 60_000, 60_000]);
    ({ webhooks, deliveries, runner } = dispatcher);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await dispatcher?.sender.close();
    await db?.drop();
  });

  const apply = (envelope: EventEnvelope<unknown>) => dispatcher.apply(envelope);
  const receive = (envelope: EventEnvelope<unknown>) => dispatcher.receive(envelope);
  const rows = <T>(sql: string, params: unknown[] = []) => dataSource.query(sql, params) as Promise<T[]>;
  /** The service's limits: 4 slots per healthy endpoint, 1 per failing one. */
  const claimRequest = (busy = new Map<string, number>()): ClaimRequest => ({
    limit: 50,
    perEndpoint: 4,
    degradedPerEndpoint: 1,
    degradedFree: 32,
    busy,
    leaseMs: 30_000,
  });
  const held = (endpointId: string) =>
    rows<{ held: boolean; n: number }>(
      `SELECT held, count(*)::int AS n FROM webhooks.deliveries WHERE endpoint_id = $1 AND status = 'pending' GROUP BY held ORDER BY held`,
      [endpointId],
    );

  async function endpointWithReceiver(answer: number): Promise<{ endpoint: TestEndpoint; receiver: TestReceiver; merchant: string }> {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    const receiver = await startReceiver({ secret: endpoint.secret, behaviour: () => (answer === 200 ? 'receive' : { status: answer }) });
    receivers.push(receiver);
    endpoint.snapshot.url = receiver.url;
    await apply(endpointEvent(endpoint));
    return { endpoint, receiver, merchant };
  }

  it('holds a failing endpoint’s deliveries, probes them one at a time, and releases them on a success', async () => {
    const { endpoint, receiver, merchant } = await endpointWithReceiver(500);
    const id = endpoint.snapshot.id;
    for (let i = 0; i < 3; i += 1) await receive(intentEvent(merchant, 'test'));

    // Healthy when claimed: up to four at once. They all fail: the endpoint is failing, its deliveries held.
    const first = await deliveries.claim(claimRequest());
    expect(first.map((c) => c.degraded)).toEqual([false, false, false]);
    expect(await Promise.all(first.map((c) => runner.run(c)))).toEqual(['retry', 'retry', 'retry']);
    expect(await held(id)).toEqual([{ held: true, n: 3 }]);
    // A new event's delivery, and a resend, join the held queue at once (claims never scan past them).
    await receive(intentEvent(merchant, 'test'));
    expect(await held(id)).toEqual([{ held: true, n: 4 }]);
    const [resent] = await rows<{ event_id: string }>(`SELECT event_id FROM webhooks.deliveries WHERE endpoint_id = $1 LIMIT 1`, [id]);
    await dataSource.transaction((manager) => deliveries.schedule(manager, id, [resent!.event_id], 'resend'));
    expect(await held(id)).toEqual([{ held: true, n: 5 }]);

    // Due again: the failing endpoint gets one attempt at a time, from its own queue.
    await dataSource.query(`UPDATE webhooks.deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
    const probe = await deliveries.claim(claimRequest());
    expect(probe.map((c) => [c.endpoint.id, c.degraded])).toEqual([[id, true]]);
    expect(await deliveries.claim(claimRequest(new Map([[id, 0]])))).toEqual([]);
    expect(await runner.run(probe[0]!)).toBe('retry');
    expect(await held(id)).toEqual([{ held: true, n: 5 }]);

    // It answers again: the success ends the streak and puts the rest back in the shared queue.
    receiver.setBehaviour(() => 'receive');
    await dataSource.query(`UPDATE webhooks.deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
    const recovery = await deliveries.claim(claimRequest());
    expect(recovery).toHaveLength(1);
    expect(await runner.run(recovery[0]!)).toBe('succeeded');
    expect(await held(id)).toEqual([{ held: false, n: 4 }]);
    const rest = await deliveries.claim(claimRequest());
    expect(rest.map((c) => c.degraded)).toEqual([false, false, false, false]);
    expect(await Promise.all(rest.map((c) => runner.run(c)))).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    // Five deliveries of four events: the receiver hands the resent one over once.
    expect(receiver.handled).toHaveLength(4);
  });

  it('a claim reads a few rows however long the backlog of a dead endpoint whose slot is taken', async () => {
    const dead = await endpointWithReceiver(500);
    const healthy = await endpointWithReceiver(200);
    const deadId = dead.endpoint.snapshot.id;
    await receive(intentEvent(dead.merchant, 'test'));
    const [{ event_id }] = await rows<{ event_id: string }>('SELECT event_id FROM webhooks.deliveries WHERE endpoint_id = $1', [deadId]);
    await dataSource.query(
      `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, kind, status, next_attempt_at)
       SELECT 'wd_backlog_' || n, $1, $2, 'replay', 'pending', now() - interval '1 hour' + n * interval '1 ms' FROM generate_series(1, 5000) n`,
      [deadId, event_id],
    );
    await receive(intentEvent(healthy.merchant, 'test'));
    // The dead endpoint fails once (its streak begins, its backlog is held), then its one slot hangs.
    const [attempt] = await deliveries.claim({ ...claimRequest(), limit: 1 });
    expect(attempt!.endpoint.id).toBe(deadId);
    expect(await runner.run(attempt!)).toBe('retry');
    await dataSource.query('ANALYZE webhooks.deliveries, webhooks.endpoints');

    const request = claimRequest(new Map([[deadId, 0]]));
    /** Rows of deliveries the release pass reads (it finds nothing to release: the dead endpoint is failing). */
    const explainRelease = async (): Promise<number> => {
      const queryRunner = dataSource.createQueryRunner();
      await queryRunner.startTransaction();
      try {
        const [{ 'QUERY PLAN': [plan] }] = (await queryRunner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${releaseRecoveredSql((t) => webhooks.table(t))}`)) as Array<{
          'QUERY PLAN': Array<{ Plan: PlanNode }>;
        }>;
        return rowsRead(plan!.Plan, 'deliveries');
      } finally {
        await queryRunner.rollbackTransaction();
        await queryRunner.release();
      }
    };
    const explain = async (): Promise<{ read: number; claimed: number }> => {
      const queryRunner = dataSource.createQueryRunner();
      await queryRunner.startTransaction();
      try {
        const params = [[deadId], request.limit * 4, request.perEndpoint, [], [], request.limit, request.leaseMs, 'explain', request.degradedFree, request.degradedPerEndpoint];
        const [{ 'QUERY PLAN': [plan] }] = (await queryRunner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${claimSql((t) => webhooks.table(t))}`, params)) as Array<{
          'QUERY PLAN': Array<{ Plan: PlanNode }>;
        }>;
        return { read: rowsRead(plan!.Plan, 'deliveries'), claimed: plan!.Plan['Actual Rows'] ?? 0 };
      } finally {
        await queryRunner.rollbackTransaction();
        await queryRunner.release();
      }
    };

    const withHeld = await explain();
    expect(withHeld.claimed).toBe(1); // the healthy endpoint's delivery
    expect(withHeld.read).toBeLessThan(20);
    // The pass that releases held deliveries of recovered endpoints (every second) does not read the backlog either.
    expect(await explainRelease()).toBeLessThan(20);
    // The same backlog in the shared queue: each claim reads past all of it.
    await dataSource.query(`UPDATE webhooks.deliveries SET held = false WHERE endpoint_id = $1`, [deadId]);
    const unheld = await explain();
    expect(unheld.claimed).toBe(1);
    expect(unheld.read).toBeGreaterThan(5000);
    await dataSource.query(`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id IN ($1, $2) AND status = 'pending'`, [
      deadId,
      healthy.endpoint.snapshot.id,
    ]);
  });

  it("an endpoint's slot is free once it answered, while its attempt is still being recorded", async () => {
    const { endpoint, merchant } = await endpointWithReceiver(200);
    for (let i = 0; i < 2; i += 1) await receive(intentEvent(merchant, 'test'));
    const limits = { perEndpoint: 1, maxInFlight: 8, pollIntervalMs: 100, leaseMs: 30_000 };
    // An attempt whose recording cannot finish until the test lets it.
    let finish: () => void = () => undefined;
    const recording = new Promise<void>((resolve) => (finish = resolve));
    const started: string[] = [];
    const worker = new DeliveryWorker(webhooks, deliveries, async (claimed, sent) => {
      started.push(claimed.id);
      sent();
      await recording;
      await deliveries.recordSuccesses([{ claimed, record: { attemptedAt: new Date(), statusCode: 200, latencyMs: 1, responseExcerpt: '', error: null, next: { status: 'succeeded' } }, healthCounts: true }]);
    }, limits);
    worker.start();
    try {
      // One slot, two deliveries: the second starts while the first is still being recorded.
      await waitFor(() => started.length === 2, 10_000, 'both attempts started');
    } finally {
      finish();
      await worker.stop();
    }
    const [{ n }] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [
      endpoint.snapshot.id,
    ]);
    expect(n).toBe(2);
  });

  it('a running worker puts back, within seconds, deliveries a crash left held behind an endpoint that recovered', async () => {
    const { endpoint, receiver, merchant } = await endpointWithReceiver(200);
    const id = endpoint.snapshot.id;
    await receive(intentEvent(merchant, 'test'));
    const worker = dispatcher.worker({ perEndpoint: 4, maxInFlight: 8, pollIntervalMs: 100, leaseMs: 2000 });
    worker.start();
    try {
      // Running, and past its first look: the first event went out.
      await waitFor(() => receiver.handled.length === 1, 10_000, 'the first delivery');
      // As a crash between a recovery and its release leaves it (one statement: the worker never sees it unheld).
      const [{ event_id }] = await rows<{ event_id: string }>('SELECT event_id FROM webhooks.deliveries WHERE endpoint_id = $1', [id]);
      await dataSource.query(
        `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, kind, status, next_attempt_at, held) VALUES ('wd_stranded_' || $1, $1, $2, 'resend', 'pending', now(), true)`,
        [id, event_id],
      );
      // Neither queue is its own until a release; a pass once a minute left it there for up to a minute.
      await waitFor(
        async () => (await rows<{ status: string }>(`SELECT status FROM webhooks.deliveries WHERE id = 'wd_stranded_' || $1`, [id]))[0]!.status === 'succeeded',
        10_000,
        'the stranded delivery sent',
      );
    } finally {
      await worker.stop();
    }
  });

  it('the periodic release puts back held deliveries of an endpoint that is not failing', async () => {
    const { endpoint, merchant } = await endpointWithReceiver(200);
    const id = endpoint.snapshot.id;
    await receive(intentEvent(merchant, 'test'));
    // As after a crash between a recovery and its release: held, though the endpoint is healthy.
    await dataSource.query(`UPDATE webhooks.deliveries SET held = true WHERE endpoint_id = $1`, [id]);
    expect(await deliveries.claim(claimRequest())).toEqual([]);
    expect(await deliveries.releaseRecovered()).toBe(1);
    const claimed = await deliveries.claim(claimRequest());
    expect(claimed.map((c) => c.endpoint.id)).toEqual([id]);
    expect(await runner.run(claimed[0]!)).toBe('succeeded');
  });
});
