import { testKafka, uniqueName, waitFor, type RunningService } from '@payments/testing';
import { invoicePaidEvent, newEndpoint, type TestEndpoint } from './support/fixtures';
import { createHarness, type Harness } from './support/harness';
import { startReceiver, type Behaviour, type TestReceiver } from './support/receiver';

// Retries live in Postgres and a claim is a lease: two instances never send one attempt at the same time, and
// an instance killed in the middle of a delivery loses nothing (its claims come back when their lease ends).
describe('several dispatcher instances and a crash', () => {
  let h: Harness;
  const receivers: TestReceiver[] = [];
  /** The instance left running by the first test. */
  let running: RunningService | undefined;
  // Short attempts (a dead instance's claims come back within the 2 s lease, which its owner renews while alive).
  const settings = { WEBHOOK_TIMEOUT_MS: '1000' };

  beforeAll(async () => {
    h = await createHarness('wd_crash');
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
  });

  async function endpointFor(merchant: string, options: { handlerDelayMs?: number; behaviour?: Behaviour }) {
    const endpoint: TestEndpoint = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later');
    const receiver = await startReceiver({ secret: endpoint.secret, ...options });
    receivers.push(receiver);
    endpoint.snapshot.url = receiver.url;
    await h.configure(endpoint);
    return receiver;
  }

  it('with two instances, no attempt is sent twice at once', async () => {
    const [a, b] = await Promise.all([h.startDispatcher(settings), h.startDispatcher(settings)]);
    const merchant = uniqueName('acct');
    // Slow answers keep attempts in flight on both instances at the same time.
    const receiver = await endpointFor(merchant, { handlerDelayMs: 150 });
    const events = Array.from({ length: 24 }, () => invoicePaidEvent(merchant, 'test'));
    await h.publish('sessions', events);
    await waitFor(() => receiver.handled.length === events.length, 60_000, 'every event');
    for (const event of events) await h.settled(event.id);

    expect(receiver.maxConcurrentPerEvent()).toBe(1);
    // Each request the receiver saw is one recorded attempt of one lease holder: nothing was sent on the side.
    const attempts = await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.attempts`);
    expect(attempts[0]!.n).toBe(receiver.requests.length);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(events.length);
    await b.stop();
    running = a;
  }, 120_000);

  it('an instance killed mid-delivery: every event is still delivered', async () => {
    expect(running).toBeDefined();
    const merchant = uniqueName('acct');
    // The first request hangs: the instance dies while that delivery is in flight.
    const receiver = await endpointFor(merchant, { behaviour: (n) => (n === 1 ? 'hang' : 'receive') });
    const before = Array.from({ length: 8 }, () => invoicePaidEvent(merchant, 'test'));
    await h.publish('sessions', before);
    await waitFor(() => receiver.open() > 0, 30_000, 'a delivery in flight');
    await running!.kill();

    // Published while no dispatcher runs.
    const after = Array.from({ length: 8 }, () => invoicePaidEvent(merchant, 'test'));
    await h.publish('sessions', after);
    await h.startDispatcher(settings);

    const all = [...before, ...after];
    await waitFor(() => receiver.handled.length === all.length, 60_000, `all ${all.length} events (got ${receiver.handled.length})`);
    expect(new Set(receiver.handled.map((e) => e.webhook.id))).toEqual(new Set(all.map((e) => e.id)));
    for (const event of all) {
      const deliveries = await h.settled(event.id);
      expect(deliveries).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    }
    // The interrupted delivery was sent again after its lease ran out.
    const hungId = receiver.requests[0]!.headers['service-event-id'];
    expect(receiver.requests.filter((r) => r.headers['service-event-id'] === hungId).length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('a consumer killed with SIGKILL hands its partitions over in seconds, not after kafkajs\'s 30 s default', async () => {
    // Both instances in the public-events group, so the one killed holds partitions whose events must move.
    const [victim, survivor] = await Promise.all([h.startDispatcher(settings), h.startDispatcher(settings)]);
    const admin = testKafka().admin();
    await admin.connect();
    const group = `${h.namespace}.webhooks.public-events`;
    try {
      await waitFor(
        async () => {
          const { groups } = await admin.describeGroups([group]);
          return groups[0]?.state === 'Stable' && groups[0].members.length >= 2;
        },
        60_000,
        'both instances in the consumer group',
      );
    } finally {
      await admin.disconnect();
    }
    const merchant = uniqueName('acct');
    const receiver = await endpointFor(merchant, {});
    await victim.kill();
    // Keyed by distinct aggregates, so they land on every partition, the dead member's too.
    const events = Array.from({ length: 24 }, () => invoicePaidEvent(merchant, 'test'));
    await h.publish('sessions', events);
    // The session timeout is 6 s: well inside this wait. With the 30 s default the dead member's share would not move in time.
    await waitFor(() => receiver.handled.length === events.length, 20_000, `all ${events.length} events after the kill (got ${receiver.handled.length})`);
    expect(new Set(receiver.handled.map((e) => e.webhook.id))).toEqual(new Set(events.map((e) => e.id)));
    await survivor.stop();
  }, 120_000);

  it('an instance stopped with SIGTERM leaves its consumer group at once, without waiting out its session', async () => {
    const [leaving, staying] = await Promise.all([h.startDispatcher(settings), h.startDispatcher(settings)]);
    const admin = testKafka().admin();
    await admin.connect();
    const group = `${h.namespace}.webhooks.public-events`;
    const members = async () => {
      const { groups } = await admin.describeGroups([group]);
      return groups[0]?.state === 'Stable' ? groups[0].members.map((m) => m.clientId) : undefined;
    };
    try {
      await waitFor(async () => ((await members())?.length ?? 0) >= 2, 60_000, 'both instances in the group');
      const before = (await members())!;
      expect(await leaving.stop()).toBe(0);
      // Well inside the 6 s session timeout: only a member that left is gone this soon.
      await waitFor(async () => (await members())?.length === before.length - 1, 4_000, 'the stopped instance out of the group');
    } finally {
      await admin.disconnect();
      await staying.stop();
    }
  }, 120_000);
});
