import { uniqueName, waitFor } from '@payments/testing';
import { intentEvent, newEndpoint } from './support/fixtures';
import { createHarness, SCHEMA, type Harness } from './support/harness';
import { startReceiver, type TestReceiver } from './support/receiver';

// A receiver that never answers holds only its own slots (WEBHOOK_ENDPOINT_CONCURRENCY); every other endpoint's
// deliveries flow past it. Logical, not timed: the healthy receiver gets everything while the dead one's first
// requests are still hanging and the rest of its deliveries wait their turn.
describe('a hanging endpoint does not slow delivery to a healthy one', () => {
  let h: Harness;
  let dead: TestReceiver;
  let healthy: TestReceiver;

  beforeAll(async () => {
    h = await createHarness('wd_isolation');
    // The hanging attempts must outlast the test: a long timeout (their leases are renewed meanwhile).
    await h.startDispatcher({
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_MAX_IN_FLIGHT: '8',
      WEBHOOK_TIMEOUT_MS: '60000',
    });
  }, 120_000);

  afterAll(async () => {
    // Receivers first: closing the dead one ends its hanging requests, so the dispatcher stops promptly.
    await dead?.close();
    await healthy?.close();
    await h?.close();
  });

  it('delivers every event to the healthy endpoint while the dead one hangs in its own two slots', async () => {
    const merchant = uniqueName('acct');
    const deadEndpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    dead = await startReceiver({ secret: deadEndpoint.secret, behaviour: () => 'hang' });
    deadEndpoint.snapshot.url = dead.url;
    const healthyEndpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    healthy = await startReceiver({ secret: healthyEndpoint.secret });
    healthyEndpoint.snapshot.url = healthy.url;
    await h.configure(deadEndpoint);
    await h.configure(healthyEndpoint);

    // Every event goes to both endpoints; more than the whole instance's 8 slots.
    const events = Array.from({ length: 12 }, () => intentEvent(merchant, 'test'));
    await h.publish('sessions', events);

    await waitFor(() => healthy.handled.length === events.length, 30_000, 'every event at the healthy endpoint');
    expect(new Set(healthy.handled.map((e) => e.webhook.id))).toEqual(new Set(events.map((e) => e.id)));
    // The dead endpoint got exactly its two slots' worth, both still open; the rest of its deliveries wait.
    expect(dead.requests).toHaveLength(2);
    expect(dead.open()).toBe(2);
    const [{ n }] = await h.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
      [deadEndpoint.snapshot.id],
    );
    expect(n).toBe(events.length);
  });
});
