import { Logger } from '@nestjs/common';
import { createTestDatabase, PgCountingProxy, uniqueName, waitFor, type TestDatabase } from '@payments/testing';
import { DataSource } from 'typeorm';
import { FOREIGN_WAKE_DELAY_MS, type DeliveryWorker } from '../src/deliveries/delivery.worker';
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

  // Each test's worker and receiver go with it.
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  afterAll(async () => {
    await dispatcher?.sender.close();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await proxy?.stop();
    await db?.drop();
  });

  /** A worker polling every `pollIntervalMs` (a minute: every claim counted is a wake-up's), its first passes (LISTEN, a first look) done. */
  async function startWorker(perEndpoint: number, pollIntervalMs = 60_000): Promise<void> {
    worker = dispatcher.worker({ perEndpoint, maxInFlight: 16, pollIntervalMs, leaseMs: 2000 });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }

  /** A merchant with an endpoint (made through `via`) whose receiver answers after `handlerDelayMs`. */
  async function endpointWithReceiver(handlerDelayMs: number, via: InProcessDispatcher = dispatcher): Promise<string> {
    const merchant = uniqueName('acct');
    const endpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    receiver = await startReceiver({ secret: endpoint.secret, handlerDelayMs });
    endpoint.snapshot.url = receiver.url;
    await via.apply(endpointEvent(endpoint));
    return merchant;
  }

  const count = (pattern: RegExp) => [...proxy.tally.statements].filter(([text]) => pattern.test(text)).reduce((sum, [, n]) => sum + n, 0);

  it('does not claim while nothing is pending, and sends a new delivery at once', async () => {
    await startWorker(4, 100);
    proxy.reset();
    proxy.counting = true;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // At a 100 ms poll that was some 25 claims; quiet, none, and not even a look yet (one every 10 s).
    expect(count(/WITH candidates AS/)).toBe(0);
    expect(count(/WITH RECURSIVE holding/)).toBe(0);

    const merchant = await endpointWithReceiver(0);
    const createdAt = Date.now();
    await dispatcher.receive(intentEvent(merchant, 'test'));
    await waitFor(() => receiver!.handled.length === 1, 5000, 'the delivery, woken by NOTIFY');
    expect(Date.now() - createdAt).toBeLessThan(2000);
    expect(count(/WITH candidates AS/)).toBeGreaterThan(0);
    proxy.counting = false;
  });

  // An answered delivery frees its endpoint's slot: that is worth a claim only if a due delivery may be waiting
  // for it.
  it('claims once for a delivery whose endpoint had slots to spare, not again when it is answered', async () => {
    const merchant = await endpointWithReceiver(0);
    await startWorker(4);
    proxy.reset();
    proxy.counting = true;
    await dispatcher.receive(intentEvent(merchant, 'test'));
    await waitFor(() => receiver!.handled.length === 1, 5000, 'the delivery, woken by NOTIFY');
    await waitFor(() => worker!.stats().inFlight === 0, 5000, 'the attempt recorded');
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.counting = false;
    expect(count(/WITH candidates AS/)).toBe(1);
  });

  it('claims again when an endpoint at its limit answers, so a delivery waiting for its slot goes at once', async () => {
    const merchant = await endpointWithReceiver(400);
    await startWorker(1);
    await dispatcher.receive(intentEvent(merchant, 'test'));
    await waitFor(() => worker!.stats().inFlight === 1, 5000, 'the first attempt under way');
    const secondAt = Date.now();
    await dispatcher.receive(intentEvent(merchant, 'test'));
    // The second waits for the endpoint's one slot; the next poll is a minute away.
    await waitFor(() => receiver!.handled.length === 2, 5000, 'the second delivery, once the first was answered');
    expect(Date.now() - secondAt).toBeLessThan(3000);
  });

  // A slot freed while a claim is on its way was counted busy by that claim: the worker claims again after it.
  it('keeps an endpoint with a backlog at its limit, however its answers and claims interleave', async () => {
    const merchant = await endpointWithReceiver(0);
    worker = dispatcher.worker({ perEndpoint: 2, maxInFlight: 16, pollIntervalMs: 60_000, leaseMs: 2000 });
    for (let i = 0; i < 40; i++) await dispatcher.receive(intentEvent(merchant, 'test'));
    worker.start();
    // Two at a time, each answered at once: without a claim after every answer, one waits a minute for the poll.
    await waitFor(() => receiver!.handled.length === 40, 15_000, 'the backlog, two at a time');
  });

  // Another instance's deliveries: that instance claims them itself, so this one claims once for all of its
  // notifications within FOREIGN_WAKE_DELAY_MS, and still sends what the other left.
  describe('deliveries another instance made', () => {
    let makerSource: DataSource;
    let maker: InProcessDispatcher;

    beforeAll(async () => {
      makerSource = await db.dataSource('webhooks', WEBHOOKS_MIGRATIONS);
      maker = inProcessDispatcher(makerSource, [60_000]);
    });

    afterAll(async () => {
      await maker?.sender.close();
      if (makerSource?.isInitialized) await makerSource.destroy();
    });

    it('are claimed once for several of its notifications close together, not once each', async () => {
      await startWorker(4);
      proxy.reset();
      proxy.counting = true;
      // Four notifications 20 ms apart: each was a claim of this instance's (four), now one or two at most.
      for (let i = 0; i < 4; i++) {
        await makerSource.transaction((manager) => maker.webhooks.notifyDeliveries(manager));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, FOREIGN_WAKE_DELAY_MS + 300));
      proxy.counting = false;
      const claims = count(/WITH candidates AS/);
      expect(claims).toBeGreaterThanOrEqual(1);
      expect(claims).toBeLessThanOrEqual(2);
    });

    it('are sent by this instance when the maker does not claim them', async () => {
      await startWorker(4);
      const merchant = await endpointWithReceiver(0, maker);
      const createdAt = Date.now();
      await maker.receive(intentEvent(merchant, 'test'));
      // The maker runs no worker here; this one's poll is a minute away.
      await waitFor(() => receiver!.handled.length === 1, 5000, 'the delivery, sent by the other instance');
      expect(Date.now() - createdAt).toBeLessThan(3000);
    });
  });
});
