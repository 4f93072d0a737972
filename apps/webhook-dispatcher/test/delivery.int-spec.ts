import { uniqueName, waitFor } from '@payments/testing';
import { verifyWebhook } from '@payments/webhook-receiver';
import { changed, endpointEvent, intentEvent, intentResource, invoicePaidEvent, newEndpoint, rolled, type TestEndpoint } from './support/fixtures';
import { DeliveriesRepository } from '../src/deliveries/deliveries.repository';
import { CatchUpSweep } from '../src/endpoints/catch-up.sweep';
import { WebhooksDatabase } from '../src/shared/webhooks-database';
import { createHarness, SCHEMA, type Harness, type WebhooksCommands } from './support/harness';
import { startReceiver, type TestReceiver } from './support/receiver';

// The dispatcher end to end: events published on Kafka as the sessions service and the gateway publish them,
// delivered to receivers built with the project's receiver library on loopback.
describe('webhook delivery', () => {
  let h: Harness;
  let commands: WebhooksCommands;
  const receivers: TestReceiver[] = [];

  const receiver = async (secret: string | string[]) => {
    const r = await startReceiver({ secret });
    receivers.push(r);
    return r;
  };

  /** A merchant with one endpoint in test mode, receiving with its secret. */
  async function merchantWithEndpoint(events: string[] | null = null): Promise<{ merchant: string; endpoint: TestEndpoint; receiver: TestReceiver }> {
    const merchant = uniqueName('acct');
    const placeholder = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/none', events);
    const r = await receiver(placeholder.secret);
    const endpoint = { ...placeholder, snapshot: { ...placeholder.snapshot, url: r.url } };
    await h.configure(endpoint);
    return { merchant, endpoint, receiver: r };
  }

  const scope = (merchant: string, endpoint: TestEndpoint) => ({ merchant_id: merchant, environment: 'test' as const, endpoint_id: endpoint.snapshot.id });

  beforeAll(async () => {
    h = await createHarness('wd_delivery');
    await h.startDispatcher();
    commands = await h.commands();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
  });

  it('delivers a payment-intent event as WebhookEvent with X-Service-* headers, signed t=<unix>,v1=<hex>', async () => {
    const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
    const object = intentResource('test', { status: 'succeeded', paid: true, paid_at: '2025-01-01T10:05:00.000Z', payment_id: '4242424242' });
    const event = intentEvent(merchant, 'test', { type: 'payment_intent.succeeded', sequence: 3, object });
    await h.publish('sessions', [event]);
    await waitFor(() => r.handled.length === 1, 30_000, 'the intent event');

    const { webhook, headers, raw } = r.handled[0]!;
    expect(webhook).toMatchObject({ scheme: 'intent', id: event.id, type: 'payment_intent.succeeded' });
    expect(JSON.parse(raw)).toEqual({
      id: event.id,
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.parse(event.occurred_at) / 1000),
      environment: 'test',
      sequence: 3,
      data: { object },
    });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-service-event']).toBe('payment_intent.succeeded');
    expect(headers['x-service-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(headers['user-agent']).toMatch(/^PaymentsWebhooks\/\d+\.\d+/);
    expect(headers.host).toBe(new URL(endpoint.snapshot.url).host);
    const [delivery] = await h.settled(event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1, kind: 'first' });
    expect(delivery!.id).toMatch(/^wd_[A-Za-z0-9]{24}$/);
  });

  it('delivers an invoice event in the invoice shape with Service-* headers, signed v1=<hex>', async () => {
    const { merchant, receiver: r } = await merchantWithEndpoint();
    const event = invoicePaidEvent(merchant, 'test');
    const invoice = (event.data as { object: Record<string, unknown> }).object;
    await h.publish('sessions', [event]);
    await waitFor(() => r.handled.length === 1, 30_000, 'the invoice event');

    const { webhook, headers, raw } = r.handled[0]!;
    expect(webhook).toMatchObject({ scheme: 'invoice', id: event.id, type: 'invoice.paid' });
    expect(JSON.parse(raw)).toEqual({
      id: event.id,
      event: 'invoice.paid',
      created_at: event.occurred_at,
      sequence: 2,
      data: {
        environment: 'test',
        invoice_id: invoice.id,
        invoice_number: '1001',
        external_ref: 'order-7',
        status: 'paid',
        amount: '74.00',
        fee: '0.37',
        net: '73.63',
        currency: 'USD',
        metadata: { cart: '7' },
        payment: invoice.payment,
      },
    });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['service-event-id']).toBe(event.id);
    expect(headers['service-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(headers['user-agent']).toMatch(/^PaymentsWebhooks\/\d+\.\d+/);
  });

  it('delivers only to the merchant and environment of the event, and only the types an endpoint takes', async () => {
    const { merchant, receiver: all } = await merchantWithEndpoint();
    const onlyPaid = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/later', ['invoice.paid']);
    const filteredReceiver = await receiver(onlyPaid.secret);
    onlyPaid.snapshot.url = filteredReceiver.url;
    await h.configure(onlyPaid);
    const liveTwin = newEndpoint(merchant, 'live', 'http://127.0.0.1:9/later');
    const live = await receiver(liveTwin.secret);
    liveTwin.snapshot.url = live.url;
    await h.configure(liveTwin);

    const created = intentEvent(merchant, 'test');
    const paid = invoicePaidEvent(merchant, 'test');
    const otherMerchant = intentEvent(uniqueName('acct'), 'test');
    await h.publish('sessions', [created, paid, otherMerchant]);
    await waitFor(() => all.handled.length === 2 && filteredReceiver.handled.length === 1, 30_000, 'the matching deliveries');
    await h.settled(paid.id, 2);
    expect(filteredReceiver.handled.map((e) => e.webhook.id)).toEqual([paid.id]);
    expect(live.requests).toHaveLength(0);
    expect(await h.deliveriesOf(otherMerchant.id)).toEqual([]);
  });

  it('sends an endpoint only the events that occurred from its creation on; a replay still reaches older ones', async () => {
    const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
    const createdAt = Date.parse(endpoint.snapshot.created_at);
    // As a new consumer group reads them from the beginning of the topic: events from before the endpoint existed.
    const older = { ...intentEvent(merchant, 'test'), occurred_at: new Date(createdAt - 10 * 60_000).toISOString() };
    const atCreation = { ...intentEvent(merchant, 'test'), occurred_at: endpoint.snapshot.created_at };
    const newer = { ...intentEvent(merchant, 'test'), occurred_at: new Date(createdAt + 1).toISOString() };
    await h.publish('sessions', [older, atCreation, newer]);
    await h.handled(older.id);
    expect(await h.deliveriesOf(older.id)).toEqual([]);
    expect((await h.settled(atCreation.id)).map((d) => d.kind)).toEqual(['first']);
    expect((await h.settled(newer.id)).map((d) => d.kind)).toEqual(['first']);
    expect(r.handled.map((e) => e.webhook.id).sort()).toEqual([atCreation.id, newer.id].sort());

    // Replay is the explicit way to older events: not limited by the endpoint's creation.
    const result = await commands.replay({ ...scope(merchant, endpoint), from: new Date(createdAt - 20 * 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
    expect(result).toMatchObject({ scheduled: 3 });
    expect(await h.settled(older.id)).toEqual([expect.objectContaining({ kind: 'replay', status: 'succeeded' })]);
    await h.settled(newer.id, 2);
    await h.settled(atCreation.id, 2);
    expect(r.handled.map((e) => e.webhook.id).sort()).toEqual([older.id, atCreation.id, newer.id].sort());
  });

  it('catches up an endpoint whose created event arrives after the payment events meant for it (other topic, other group)', async () => {
    const merchant = uniqueName('acct');
    const placeholder = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/none');
    const r = await receiver(placeholder.secret);
    const endpoint = { ...placeholder, snapshot: { ...placeholder.snapshot, url: r.url } };
    const createdAt = Date.parse(endpoint.snapshot.created_at);
    const before = { ...intentEvent(merchant, 'test'), occurred_at: new Date(createdAt - 60_000).toISOString() };
    const after = [intentEvent(merchant, 'test'), invoicePaidEvent(merchant, 'test')];
    // The payment events first, the endpoint's event held back until they are handled.
    await h.publish('sessions', [before, ...after]);
    for (const event of [before, ...after]) await h.handled(event.id);
    expect(await h.deliveriesOf(after[0]!.id)).toEqual([]);
    await h.configure(endpoint);
    for (const event of after) expect((await h.settled(event.id)).map((d) => d.status)).toEqual(['succeeded']);
    await waitFor(() => r.handled.length === after.length, 30_000, 'the caught-up events');
    expect(r.handled.map((e) => e.webhook.id).sort()).toEqual(after.map((e) => e.id).sort());
    // Not what occurred before the endpoint existed, as for a first send.
    expect(await h.deliveriesOf(before.id)).toEqual([]);
  });

  it('the catch-up sweep schedules what a race around an endpoint\'s first sight left without a delivery', async () => {
    const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    await h.settled(event.id);
    // What the race leaves: the event stored, no delivery of it to the endpoint (each side read before the other committed).
    await h.query(`DELETE FROM ${SCHEMA}.attempts WHERE delivery_id IN (SELECT id FROM ${SCHEMA}.deliveries WHERE event_id = $1)`, [event.id]);
    await h.query(`DELETE FROM ${SCHEMA}.deliveries WHERE event_id = $1`, [event.id]);
    const dataSource = await h.db.dataSource(SCHEMA);
    const webhooks = new WebhooksDatabase(dataSource, SCHEMA);
    const sweep = new CatchUpSweep(webhooks, new DeliveriesRepository(webhooks));
    // This sweep or the service's own (it sweeps soon after each first sight) schedules it, once.
    await waitFor(
      async () => {
        await sweep.sweep();
        return (await h.deliveriesOf(event.id)).length > 0;
      },
      30_000,
      'the missed event scheduled',
    );
    expect((await h.settled(event.id)).map((d) => [d.kind, d.status])).toEqual([['replay', 'succeeded']]);
    expect(r.requests.length).toBe(2);
    expect(await sweep.sweep()).toBe(0);
    // Only endpoints first seen in the last minutes are swept.
    await h.query(`UPDATE ${SCHEMA}.endpoints SET first_seen_at = now() - interval '1 hour' WHERE id = $1`, [endpoint.snapshot.id]);
    await h.query(`DELETE FROM ${SCHEMA}.attempts WHERE delivery_id IN (SELECT id FROM ${SCHEMA}.deliveries WHERE event_id = $1)`, [event.id]);
    await h.query(`DELETE FROM ${SCHEMA}.deliveries WHERE event_id = $1`, [event.id]);
    expect(await sweep.sweep()).toBe(0);
  });

  it('an endpoint first seen disabled gets everything since its creation once it is enabled', async () => {
    const merchant = uniqueName('acct');
    const placeholder = newEndpoint(merchant, 'test', 'http://127.0.0.1:9/none');
    const r = await receiver(placeholder.secret);
    const endpoint = { ...placeholder, snapshot: { ...placeholder.snapshot, url: r.url, status: 'disabled' as const } };
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    await h.handled(event.id);
    await h.configure(endpoint);
    await h.configure(changed(endpoint, { status: 'enabled' }), 'webhook_endpoint.updated');
    await waitFor(() => r.handled.length === 1, 30_000, 'the event missed before the endpoint was first seen');
    expect(r.handled[0]!.webhook.id).toBe(event.id);
  });

  it('retries a receiver that answers 500, and the retry delivers the event', async () => {
    const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
    r.failNext(1);
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    const [delivery] = await h.settled(event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(r.requests.map((req) => req.status)).toEqual([500, 200]);
    expect(r.handled.map((e) => e.webhook.id)).toEqual([event.id]);

    const list = await commands.list(scope(merchant, endpoint));
    expect(list).toMatchObject({ object: 'list', has_more: false });
    expect(list.data).toHaveLength(1);
    const view = list.data[0]!;
    expect(view).toMatchObject({ id: delivery!.id, object: 'webhook_delivery', event_id: event.id, event_type: 'payment_intent.created', status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect(view.attempts.map((a) => a.status_code)).toEqual([500, 200]);
    expect(view.attempts[0]!.response_excerpt).toContain('handler_failed');
    expect(view.attempts[1]!.response_excerpt).toBe('{"received":true}');
    for (const attempt of view.attempts) expect(attempt.latency_ms).toEqual(expect.any(Number));
    // Each attempt shows when its failure scheduled the next one (DESIGN §6); the success scheduled none.
    const scheduled = Date.parse(view.attempts[0]!.next_attempt_at!);
    expect(scheduled).toBeGreaterThan(Date.parse(view.attempts[0]!.attempted_at));
    expect(scheduled).toBeLessThanOrEqual(Date.parse(view.attempts[1]!.attempted_at) + 1000);
    expect(view.attempts[1]!.next_attempt_at).toBeNull();
  });

  it('a Kafka re-delivery of an event makes one delivery, not two', async () => {
    const { merchant, receiver: r } = await merchantWithEndpoint();
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    await h.publish('sessions', [event]);
    // The next event of the same intent: same partition, so the copy before it has been consumed by then.
    const marker = intentEvent(merchant, 'test', { type: 'payment_intent.processing', sequence: 2, object: event.data.object });
    await h.publish('sessions', [marker]);
    await h.settled(marker.id);
    await h.settled(event.id);
    expect(await h.deliveriesOf(event.id)).toHaveLength(1);
    // Raw requests, before the receiver's own dedupe: the event was sent once.
    expect(r.requests).toHaveLength(2);
    expect(r.handled.map((e) => e.webhook.id).sort()).toEqual([event.id, marker.id].sort());
  });

  it("after a roll, the old and the new secret's signatures both verify until the old one expires", async () => {
    const { merchant, endpoint } = await merchantWithEndpoint();
    const rollOver = rolled(endpoint, new Date(Date.now() + 24 * 3600 * 1000));
    const r = await receiver([rollOver.secret, endpoint.secret]);
    const withReceiver = changed(rollOver, { url: r.url }, rollOver.secret);
    await h.configure(withReceiver, 'webhook_endpoint.updated');

    const during = invoicePaidEvent(merchant, 'test');
    await h.publish('sessions', [during]);
    await waitFor(() => r.handled.length === 1, 30_000, 'the event during the roll');
    const signed = r.handled[0]!;
    expect(signed.headers['service-signature']).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(signed.raw, signed.headers, { secret: endpoint.secret }).ok).toBe(true);
    expect(verifyWebhook(signed.raw, signed.headers, { secret: rollOver.secret }).ok).toBe(true);

    // The overlap is over (the gateway's next version says so): only the new secret signs.
    const ended = changed(withReceiver, { previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() }, rollOver.secret);
    await h.configure(ended, 'webhook_endpoint.updated');
    const after = intentEvent(merchant, 'test');
    await h.publish('sessions', [after]);
    await waitFor(() => r.handled.length === 2, 30_000, 'the event after the roll');
    const late = r.handled[1]!;
    expect(late.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(late.raw, late.headers, { secret: rollOver.secret }).ok).toBe(true);
    expect(verifyWebhook(late.raw, late.headers, { secret: endpoint.secret })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('ignores an endpoint event older than the version it holds', async () => {
    const { endpoint } = await merchantWithEndpoint();
    const v2 = changed(endpoint, { url: 'http://127.0.0.1:9/v2' });
    await h.configure(v2, 'webhook_endpoint.updated');
    const stale = changed(endpoint, { url: 'http://127.0.0.1:9/stale' });
    const staleEvent = endpointEvent(stale, 'webhook_endpoint.updated');
    await h.publish('gateway', [staleEvent]);
    await h.handled(staleEvent.id);
    const [row] = await h.query<{ url: string; sequence: number }>(`SELECT url, sequence FROM ${SCHEMA}.endpoints WHERE id = $1`, [endpoint.snapshot.id]);
    expect(row).toEqual({ url: 'http://127.0.0.1:9/v2', sequence: 2 });
  });

  it('410 disables the endpoint at once with a notification row; enabling it again replays what it missed', async () => {
    const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
    r.setBehaviour(() => ({ status: 410 }));
    const gone = intentEvent(merchant, 'test');
    await h.publish('sessions', [gone]);
    const [first] = await h.settled(gone.id);
    expect(first).toMatchObject({ status: 'failed', attempt_count: 1, failure_reason: 'endpoint_gone' });
    const [state] = await h.query<{ auto_disabled_reason: string }>(`SELECT auto_disabled_reason FROM ${SCHEMA}.endpoints WHERE id = $1`, [endpoint.snapshot.id]);
    expect(state!.auto_disabled_reason).toBe('gone');
    const notes = await h.query<{ kind: string; merchant_id: string; payload: Record<string, unknown> }>(
      `SELECT kind, merchant_id, payload FROM ${SCHEMA}.notifications WHERE endpoint_id = $1`,
      [endpoint.snapshot.id],
    );
    expect(notes).toEqual([{ kind: 'webhook_endpoint.disabled', merchant_id: merchant, payload: expect.objectContaining({ reason: 'gone', url: r.url }) }]);

    // While disabled: nothing is sent.
    const missed = intentEvent(merchant, 'test');
    await h.publish('sessions', [missed]);
    const marker = intentEvent(merchant, 'test');
    await h.publish('sessions', [marker]);
    await h.handled(missed.id);
    await h.handled(marker.id);
    expect(await h.deliveriesOf(missed.id)).toEqual([]);
    await expect(commands.replay({ ...scope(merchant, endpoint), from: new Date(Date.now() - 60_000).toISOString(), to: new Date().toISOString() })).rejects.toMatchObject({
      code: 'invalid_state',
    });

    // The merchant enables it again (the gateway's next version, status enabled): the missed events are replayed.
    r.setBehaviour(() => 'receive');
    await h.configure(changed(endpoint, { status: 'enabled' }), 'webhook_endpoint.updated');
    await waitFor(() => r.handled.length === 3, 30_000, 'the replayed events');
    expect(r.handled.map((e) => e.webhook.id).sort()).toEqual([gone.id, missed.id, marker.id].sort());
    const replays = await h.deliveriesOf(missed.id);
    expect(replays).toEqual([expect.objectContaining({ kind: 'replay', status: 'succeeded' })]);
  });

  it('fails a delivery after its last attempt', async () => {
    const { merchant, receiver: r } = await merchantWithEndpoint();
    r.setBehaviour(() => ({ status: 503 }));
    const event = intentEvent(merchant, 'test');
    await h.publish('sessions', [event]);
    const [delivery] = await h.settled(event.id);
    // WEBHOOK_RETRY_SCHEDULE_MS has four delays: five attempts.
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 5, failure_reason: 'attempts_exhausted' });
    expect(r.requests).toHaveLength(5);
  });

  describe('commands', () => {
    it('resends one delivery: a new delivery of the same event', async () => {
      const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
      const event = intentEvent(merchant, 'test');
      await h.publish('sessions', [event]);
      const [delivery] = await h.settled(event.id);
      const resent = await commands.resend({ ...scope(merchant, endpoint), delivery_id: delivery!.id });
      expect(resent).toMatchObject({ object: 'webhook_delivery', event_id: event.id, status: 'pending', attempt_count: 0, attempts: [] });
      expect(resent.id).not.toBe(delivery!.id);
      await h.settled(event.id, 2);
      expect(r.requests).toHaveLength(2);
      // Same event id both times: the receiver handled it once.
      expect(r.handled).toHaveLength(1);
      expect((await h.deliveriesOf(event.id)).map((d) => d.kind)).toEqual(['first', 'resend']);
    });

    it('replays every event of a time range', async () => {
      const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
      const from = new Date(Date.now() - 1000);
      const events = [intentEvent(merchant, 'test'), invoicePaidEvent(merchant, 'test'), intentEvent(merchant, 'test', { type: 'payment_intent.cancelled', sequence: 2 })];
      await h.publish('sessions', events);
      for (const event of events) await h.settled(event.id);
      const result = await commands.replay({ ...scope(merchant, endpoint), from: from.toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
      expect(result).toMatchObject({ object: 'webhook_replay', endpoint_id: endpoint.snapshot.id, scheduled: 3 });
      await waitFor(() => r.requests.length === 6, 30_000, 'the replayed requests');
      for (const event of events) expect((await h.settled(event.id, 2)).map((d) => d.kind)).toEqual(['first', 'replay']);
      await expect(commands.replay({ ...scope(merchant, endpoint), from: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString(), to: new Date().toISOString() })).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'from',
      });
    });

    it('sends a signed test event', async () => {
      const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
      const delivery = await commands.sendTest(scope(merchant, endpoint));
      expect(delivery).toMatchObject({ event_type: 'webhook_endpoint.test', status: 'pending' });
      await waitFor(() => r.handled.length === 1, 30_000, 'the test event');
      expect(r.handled[0]!.webhook).toMatchObject({ scheme: 'intent', type: 'webhook_endpoint.test', id: delivery.event_id });
      expect(JSON.parse(r.handled[0]!.raw).data.object).toEqual({ id: endpoint.snapshot.id, object: 'webhook_endpoint', url: r.url, environment: 'test' });
      // The receiver has the request before the dispatcher has recorded the answer: wait for the record.
      let latest: Awaited<ReturnType<typeof commands.list>>['data'][number] | undefined;
      await waitFor(async () => {
        latest = (await commands.list({ ...scope(merchant, endpoint), limit: 1 })).data[0];
        return latest?.status !== 'pending';
      }, 30_000, 'the recorded attempt');
      expect(latest).toMatchObject({ id: delivery.id, status: 'succeeded', attempt_count: 1 });
    });

    it('resends, replays and sends a test once per command id, however often the command comes (a lost answer retried)', async () => {
      const { merchant, endpoint, receiver: r } = await merchantWithEndpoint();
      const from = new Date(Date.now() - 1000);
      const event = intentEvent(merchant, 'test');
      await h.publish('sessions', [event]);
      const [delivery] = await h.settled(event.id);
      const resendId = uniqueName('cmd');
      const resent = await commands.resend({ ...scope(merchant, endpoint), delivery_id: delivery!.id }, resendId);
      expect(await commands.resend({ ...scope(merchant, endpoint), delivery_id: delivery!.id }, resendId)).toMatchObject({ id: resent.id });
      const replayId = uniqueName('cmd');
      const window = { from: from.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      const replayed = await commands.replay({ ...scope(merchant, endpoint), ...window }, replayId);
      expect(await commands.replay({ ...scope(merchant, endpoint), ...window }, replayId)).toEqual(replayed);
      const testId = uniqueName('cmd');
      const tested = await commands.sendTest(scope(merchant, endpoint), testId);
      expect(await commands.sendTest(scope(merchant, endpoint), testId)).toMatchObject({ id: tested.id, event_id: tested.event_id });
      // One delivery each: first, one resend, one replay; one test event.
      await waitFor(async () => (await h.deliveriesOf(event.id)).length === 3 && r.requests.length >= 4, 30_000, 'the deliveries');
      expect((await h.deliveriesOf(event.id)).map((d) => d.kind).sort()).toEqual(['first', 'replay', 'resend']);
      expect((await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE endpoint_id = $1 AND kind = 'test'`, [endpoint.snapshot.id]))[0]!.n).toBe(1);
      // The same id on another command is a conflict, not a second action.
      await expect(commands.sendTest(scope(merchant, endpoint), resendId)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    });

    it('pages deliveries newest first', async () => {
      const { merchant, endpoint } = await merchantWithEndpoint();
      const events = [intentEvent(merchant, 'test'), intentEvent(merchant, 'test'), intentEvent(merchant, 'test')];
      for (const event of events) {
        await h.publish('sessions', [event]);
        await h.settled(event.id);
      }
      const first = await commands.list({ ...scope(merchant, endpoint), limit: 2 });
      expect(first.has_more).toBe(true);
      expect(first.data.map((d) => d.event_id)).toEqual([events[2]!.id, events[1]!.id]);
      const second = await commands.list({ ...scope(merchant, endpoint), limit: 2, starting_after: first.data[1]!.id });
      expect(second).toMatchObject({ has_more: false });
      expect(second.data.map((d) => d.event_id)).toEqual([events[0]!.id]);
    });

    it("answers not_found for another merchant's or environment's endpoint", async () => {
      const { merchant, endpoint } = await merchantWithEndpoint();
      await expect(commands.list({ ...scope(uniqueName('acct'), endpoint) })).rejects.toMatchObject({ code: 'not_found' });
      await expect(commands.list({ ...scope(merchant, endpoint), environment: 'live' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(commands.sendTest({ ...scope(merchant, endpoint), endpoint_id: 'we_nothing' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(commands.resend({ ...scope(merchant, endpoint), delivery_id: 'wd_nothing' })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('refuses a command that breaks its schema as the gateway would (400 naming the field), and schedules nothing', async () => {
      const { merchant, endpoint } = await merchantWithEndpoint();
      const refused = (param: string) => ({ code: 'invalid_request', param });
      await expect(commands.list({ ...scope(merchant, endpoint), limit: 1.5 } as never)).rejects.toMatchObject(refused('limit'));
      await expect(commands.list({ ...scope(merchant, endpoint), limit: '10' } as never)).rejects.toMatchObject(refused('limit'));
      await expect(commands.resend({ ...scope(merchant, endpoint), delivery_id: "wd_x' OR '1'='1" })).rejects.toMatchObject(refused('delivery_id'));
      await expect(commands.sendTest({ ...scope(merchant, endpoint), endpoint_id: 'acct_not_an_endpoint' })).rejects.toMatchObject(refused('endpoint_id'));
      await expect(commands.sendTest({ ...scope(merchant, endpoint), merchant_id: 'm'.repeat(65) })).rejects.toMatchObject(refused('merchant_id'));
      await expect(commands.replay({ ...scope(merchant, endpoint), from: 'x'.repeat(65), to: new Date().toISOString() })).rejects.toMatchObject(refused('from'));
      expect((await commands.list(scope(merchant, endpoint))).data).toEqual([]);
    });
  });
});
