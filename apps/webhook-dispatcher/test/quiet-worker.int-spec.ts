import { Logger } from '@nestjs/common';
import { createTestDatabase, PgCountingProxy, uniqueName, waitFor, type TestDatabase } from '@payments/testing';
import { DataSource } from 'typeorm';
import type { DeliveryWorker } from '../src/deliveries/delivery.worker';
import { WEBHOOKS_MIGRATIONS } from '../src/migrations/webhooks-schema';
import { endpointEvent, intentEvent, newEndpoint } from './support/fixtures';
import { inProcessDispatcher, type InProcessDispatcher } from './support/in-process';
import { startReceiver, type TestReceiver } from './support/receiver';

Logger.overrideLogger(['error']);

// While no delivery is pending anywhere, an idle worker neither claims nor polls at its interval (it only looks,
// rarely): deliveries created later still go out at once, woken by NOTIFY.
describe('a quiet delivery worker', () => {
  let db: TestDatabase;
  let proxy: PgCountingProxy;
  let dataSource: DataSource;
  let dispatcher: InProcessDispatcher;
  let worker: DeliveryWorker | undefined;
  let receiver: TestReceiver | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('wd_quiet');
    await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
    proxy = new PgCountingProxy();
    const url = new URL(db.url);
    url.port = String(await proxy.start());
    dataSource = new DataSource({ type: 'postgres', url: url.toString(), schema: 'webhooks', logging: false, extra: { max: 4 } });
    await dataSource.initialize();
    dispatcher = inProcessDispatcher(dataSource, [60_000]);
  });

  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await dispatcher?.sender.close();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await proxy?.stop();
    await db?.drop();
  });

  const count = (pattern: RegExp) => [...proxy.tally.statements].filter(([text]) => pattern.test(text)).reduce((sum, [, n]) => sum + n, 0);

  it('does not claim while nothing is pending, and sends a new delivery at once', async () => {
    worker = dispatcher.worker({ perEndpoint: 4, maxInFlight: 16, pollIntervalMs: 100, leaseMs: 2000 });
    worker.start();
    // Its first passes (LISTEN, a first look) done.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    proxy.reset();
    proxy.counting = true;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // At a 100 ms poll that was some 25 claims; quiet, none, and not even a look yet (one every 10 s).
    expect(count(/WITH candidates AS/)).toBe(0);
    expect(count(/WITH RECURSIVE holding/)).toBe(0);

    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    receiver = await startReceiver({ secret: endpoint.secret });
    endpoint.snapshot.url = receiver.url;
    await dispatcher.apply(endpointEvent(endpoint));
    const createdAt = Date.now();
    await dispatcher.receive(intentEvent(merchant, 'test'));
    await waitFor(() => receiver!.handled.length === 1, 5000, 'the delivery, woken by NOTIFY');
    expect(Date.now() - createdAt).toBeLessThan(2000);
    expect(count(/WITH candidates AS/)).toBeGreaterThan(0);
    proxy.counting = false;
  });
});
