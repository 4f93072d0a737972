import { STREAMS, topicName, validateEnvelope } from '@payments/events';
import { createTestDatabase, freePort, startService, topicMessages, uniqueName, waitFor, type RunningService, type TestDatabase } from '@payments/testing';
import type { InvoiceResource, PaymentIntentResource } from '@payments/contracts';
import { connectSessionsCommandClient, type SessionsCommandClient } from './support/command-client';
import { codeOf, createHarness, intentCommand, invoiceCommand, type SessionsHarness, testMerchant } from './support/sessions-harness';

// Two built sessions services as separate processes on one database: commands over the command transport spread
// across both, the expiry job acting once across both, and the outbox relay publishing the events.
describe('sessions service', () => {
  const namespace = uniqueName('ses');
  const { merchant, scope } = testMerchant();
  let db: TestDatabase;
  const services: RunningService[] = [];
  let client: SessionsCommandClient;
  let h: SessionsHarness;

  beforeAll(async () => {
    db = await createTestDatabase('sessions_svc');
    const env = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, PUBLIC_BASE_URL: 'https://pay.example.test' };
    // One after the other: the second finds the schema migrated (the first holds the migration lock anyway).
    services.push(await startService('sessions', { ...env, PORT: String(await freePort()), INSTANCE_ID: 'a' }));
    services.push(await startService('sessions', { ...env, PORT: String(await freePort()), INSTANCE_ID: 'b' }));
    client = connectSessionsCommandClient(services);
    h = await createHarness({ db, namespace });
  }, 120_000);

  // What the services published: their relay deletes each outbox row it sent, so the events are read from the topic.
  const published = async () => {
    await waitFor(async () => (await h.count('outbox', 'sent_at IS NULL')) === 0, 30_000, 'outbox drained', 200);
    const messages = await topicMessages(topicName(namespace, STREAMS.sessions));
    return messages.map((message) => ({ message, envelope: validateEnvelope(JSON.parse(message.value!)) }));
  };

  afterAll(async () => {
    await client?.close();
    for (const service of services) if (service.process.signalCode === null) expect(await service.stop()).toBe(0);
    await h?.close();
    await db?.drop();
  });

  it('serves create, get, simulate and cancel of payment intents', async () => {
    const created = await client.request('payment-intents.create', intentCommand(merchant), 'req_command_1');
    expect(created).toMatchObject({ object: 'payment_intent', status: 'requires_payment_method', checkout_url: `https://pay.example.test/checkout/${created.id}` });
    expect(await client.request('payment-intents.get', { ...scope, id: created.id })).toEqual(created);

    const paid = await client.request('payment-intents.simulate', { ...scope, id: created.id, result: 'succeeded', method: 'crypto' });
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'crypto', fee: '1.11', net_amount: '72.89' });
    expect(paid.crypto).toMatchObject({ received_amount: '74.00', remaining_amount: '0.00' });

    const other = await client.request('payment-intents.create', intentCommand(merchant), 'req_command_2');
    expect((await client.request('payment-intents.cancel', { ...scope, id: other.id })).status).toBe('cancelled');

    const events = await h.eventsOf(created.id);
    expect(events[0]!.metadata).toMatchObject({ correlation_id: 'req_command_1', merchant_id: merchant });
  });

  it('answers refusals in the API error codes', async () => {
    const created = await client.request('payment-intents.create', intentCommand(merchant));
    expect(await codeOf(client.request('payment-intents.get', { ...scope, id: 'pi_test_000000000000000000000000' }))).toBe('not_found');
    expect(await codeOf(client.request('payment-intents.get', { ...scope, merchant_id: uniqueName('acct'), id: created.id }))).toBe('not_found');
    expect(await codeOf(client.request('payment-intents.simulate', { ...scope, environment: 'live', id: created.id, result: 'failed' }))).toBe(
      'live_mode_not_allowed',
    );
    await client.request('payment-intents.cancel', { ...scope, id: created.id });
    expect(await codeOf(client.request('payment-intents.cancel', { ...scope, id: created.id }))).toBe('invalid_state');
    expect(
      await codeOf(client.request('payment-intents.create', intentCommand(merchant, { merchant: { enabled_methods: ['togo'] } }, { methods: ['lahza'] }))),
    ).toBe('payment_methods_unavailable');
    expect(await codeOf(client.request('payment-intents.create', intentCommand(merchant, {}, { amount: '1e3' })))).toBe('invalid_request');
  });

  it('serves invoices', async () => {
    const created = await client.request('invoices.create', invoiceCommand(merchant));
    expect(created).toMatchObject({ number: '1001', status: 'pending', environment: 'test' });
    expect(await client.request('invoices.simulate', { ...scope, id: created.id, result: 'paid' })).toEqual({
      id: created.id,
      status: 'paid',
      environment: 'test',
    });
    expect(await client.request('invoices.get', { ...scope, id: created.id })).toMatchObject({ status: 'paid', payment: { method: 'wallet' } });
    const live = await client.request('invoices.create', invoiceCommand(merchant, { environment: 'live' }));
    expect(await codeOf(client.request('invoices.simulate', { ...scope, environment: 'live', id: live.id, result: 'paid' }))).toBe('live_mode_not_allowed');
  });

  it('expires due sessions within seconds of expires_at, once, with both instances running', async () => {
    // Created "298 s ago" with expires_in 300: due two seconds from now.
    const soon = -298_000;
    const intents: PaymentIntentResource[] = [];
    const invoices: InvoiceResource[] = [];
    await h.clock.shifted(soon, async () => {
      for (let i = 0; i < 10; i += 1) intents.push(await h.intents.create(intentCommand(merchant, {}, { expires_in: 300 }), 'req_soon'));
      for (let i = 0; i < 5; i += 1) invoices.push(await h.invoices.create(invoiceCommand(merchant, {}, { expires_in: 300 }), 'req_soon'));
    });
    const ids = [...intents, ...invoices].map((s) => s.id);
    await waitFor(
      async () => (await h.count('events', `stream_id = ANY($1) AND type IN ('PaymentIntentExpired', 'InvoiceExpired')`, [ids])) === ids.length,
      30_000,
      'every due session expired',
      200,
    );
    const expiredPublished = (await published()).filter(({ envelope }) => envelope.type.endsWith('.expired'));
    for (const id of ids) {
      const expired = await h.eventsOf(id);
      expect(expired.map((e) => e.type).filter((t) => t.endsWith('Expired'))).toHaveLength(1);
      expect(expiredPublished.filter(({ envelope }) => envelope.aggregate_id === id)).toHaveLength(1);
    }
    for (const { id } of intents) expect((await client.request('payment-intents.get', { ...scope, id })).status).toBe('expired');
    for (const { id } of invoices) expect((await client.request('invoices.get', { ...scope, id })).status).toBe('expired');
  });

  it('publishes every event to the sessions topic, keyed by the intent or invoice, in stream order', async () => {
    const messages = await published();
    // Every row the relay sent is gone from the outbox, and every session of this file has its events on the topic.
    expect(await h.count('outbox')).toBe(0);
    const streams = (await h.dataSource.query('SELECT DISTINCT stream_id FROM sessions.events')) as Array<{ stream_id: string }>;
    expect(new Set(messages.map(({ message }) => message.key))).toEqual(new Set(streams.map((row) => row.stream_id)));
    expect(new Set(messages.map(({ envelope }) => envelope.id)).size).toBe(messages.length);
    const lastSequence = new Map<string, number>();
    for (const { message, envelope } of messages) {
      expect(message.key).toBe(envelope.aggregate_id);
      expect(message.headers['event-type']).toBe(envelope.type);
      expect(envelope.sequence).toBeGreaterThan(lastSequence.get(envelope.aggregate_id) ?? 0);
      lastSequence.set(envelope.aggregate_id, envelope.sequence);
    }
  });

  it('spreads commands over both instances, and a killed one\'s share moves to the other at once', async () => {
    const ping = () => client.ping();
    const answeredBy = async (count: number) => {
      const instances: string[] = [];
      for (let i = 0; i < count; i += 1) instances.push((await ping()).instance);
      return instances;
    };
    expect(new Set(await answeredBy(10))).toEqual(new Set(['a', 'b']));

    // Commands keep coming while instance a dies mid-stream; none fails and from the kill on only b answers.
    const answers: Array<{ at: number; instance?: string; error?: unknown }> = [];
    const stream = (async () => {
      const until = Date.now() + 3000;
      while (Date.now() < until) {
        const at = Date.now();
        await Promise.all(
          Array.from({ length: 4 }, () => ping().then((a) => answers.push({ at, instance: a.instance }), (error: unknown) => answers.push({ at, error }))),
        );
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const killedAt = Date.now();
    await services[0]!.kill();
    await stream;
    expect(answers.filter((a) => a.error !== undefined)).toEqual([]);
    const afterKill = answers.filter((a) => a.at > killedAt + 5);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(new Set(afterKill.map((a) => a.instance))).toEqual(new Set(['b']));
    // Sent in the last second before the kill: both still shared the load.
    expect(new Set(answers.filter((a) => a.at < killedAt).map((a) => a.instance))).toEqual(new Set(['a', 'b']));
  });
});
