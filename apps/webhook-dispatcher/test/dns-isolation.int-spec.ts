import { Logger } from '@nestjs/common';
import { createTestDatabase, startTestDnsServer, uniqueName, waitFor, type TestDatabase, type TestDnsServer } from '@payments/testing';
import type { DataSource } from 'typeorm';
import type { DeliveryWorker } from '../src/deliveries/delivery.worker';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { endpointEvent, intentEvent, newEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';
import { startReceiver, type TestReceiver } from './support/receiver';

Logger.overrideLogger(['error']);

// Issue: one merchant's endpoints on a name server that drops queries used to hold libuv's four threads in
// getaddrinfo, stalling every merchant's deliveries (and the process's file, crypto and lookup work). Deliveries
// now resolve with their own resolver (timeouts, tries, a cap per merchant), so another merchant's webhooks
// arrive while the first merchant's lookups are still unanswered.
describe('slow DNS class: one merchant whose name server drops queries', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let dispatcher: InProcessDispatcher;
  let dns: TestDnsServer;
  let receiver: TestReceiver;
  let worker: DeliveryWorker | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('wd_dns');
    dataSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    dns = await startTestDnsServer({ zone: { 'hooks.calm.test': ['127.0.0.1'] }, drops: (name) => name.endsWith('.dropped.test') });
    // A dropped lookup takes 1 s + 2 s (the second try waits twice as long) before it fails.
    dispatcher = inProcessDispatcher(dataSource, [60_000], { timeoutMs: 8000, dns: { servers: [dns.address], timeoutMs: 1000, tries: 2, perOwnerInFlight: 4 } });
  });

  afterAll(async () => {
    await worker?.stop();
    await dispatcher?.sender.close();
    await receiver?.close();
    await dns?.close();
    await db?.drop();
  });

  it("another merchant's deliveries arrive while the first merchant's lookups are still unanswered", async () => {
    const stalled = uniqueName('acct');
    const calm = uniqueName('acct');
    const calmEndpoint = newEndpoint(calm, 'live', 'http://127.0.0.1:9/later');
    receiver = await startReceiver({ secret: calmEndpoint.secret });
    const port = new URL(receiver.url).port;
    calmEndpoint.snapshot.url = `http://hooks.calm.test:${port}/hooks`;

    // Ten endpoints of one merchant, each on its own name under the dropping server, three events each.
    for (let i = 0; i < 10; i += 1) await dispatcher.apply(endpointEvent(newEndpoint(stalled, 'live', `http://e${i}.dropped.test:${port}/hooks`)));
    await dispatcher.apply(endpointEvent(calmEndpoint));
    for (let i = 0; i < 3; i += 1) await dispatcher.receive(intentEvent(stalled, 'live'));
    worker = dispatcher.worker({
      perEndpoint: 4,
      maxInFlight: 64,
      pollIntervalMs: 100,
      leaseMs: 30_000,
    });
    worker.start();
    // The stalled merchant's attempts are under way and its name server is sitting on their queries.
    await waitFor(() => dns.dropped() >= 8);

    for (let i = 0; i < 5; i += 1) await dispatcher.receive(intentEvent(calm, 'live'));
    worker.poke();
    await waitFor(() => receiver.handled.length === 5);

    // Every calm delivery arrived, and not one of the stalled merchant's attempts has ended yet.
    const [{ ended }] = (await dataSource.query(
      `SELECT count(*)::int AS ended FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id
        JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id WHERE ep.merchant_id = $1`,
      [stalled],
    )) as Array<{ ended: number }>;
    expect(ended).toBe(0);
    // At most four of its names were being asked at once (A and AAAA each).
    const askedNames = new Set(dns.queries.filter((q) => q.includes('.dropped.test')).map((q) => q.split(' ')[1]));
    expect(askedNames.size).toBeLessThanOrEqual(4);

    // Then its attempts fail on the resolver's timeout and are retried later, as any unreachable endpoint.
    await waitFor(async () => {
      const [{ failed }] = (await dataSource.query(
        `SELECT count(*)::int AS failed FROM webhooks.deliveries d JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id
          WHERE ep.merchant_id = $1 AND d.attempt_count > 0`,
        [stalled],
      )) as Array<{ failed: number }>;
      return failed === 30;
    }, 30_000);
  });
});

