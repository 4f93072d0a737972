import { randomUUID } from 'node:crypto';
import {
  exitOf,
  freePort,
  startService,
  startStack,
  startTestDnsServer,
  topicMessages,
  uniqueName,
  waitFor,
  type RunningService,
  type Stack,
  type TestMerchant,
} from '@payments/testing';
import { decryptSecret, DEVELOPMENT_WEBHOOK_SECRETS_KEY, parseSecretsKey } from '@payments/webhooks';
import { Redis } from 'ioredis';
import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { WEBHOOKS_COMMANDS, WEBHOOKS_SERVICE } from '@payments/contracts';
import { commandPattern, CommandServer, type RpcRequest } from '@payments/platform';
import type { DataSource } from 'typeorm';

// The webhook endpoint API as a merchant's server uses it: settings kept by the gateway, every change published
// (through the outbox) for the webhook-dispatcher, delivery routes forwarded to the dispatcher over Kafka.
// Public targets are IP literals: the check resolves host names, and this machine may have no DNS.
const PUBLIC_URL = 'https://93.184.216.34/hooks';
const PUBLIC_V6_URL = 'https://[2606:4700:4700::1111]/payments/webhooks?source=pay';
const SECRET = /^whsec_[A-Za-z0-9]{32}$/;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const devKey = parseSecretsKey(DEVELOPMENT_WEBHOOK_SECRETS_KEY);

interface PublishedEvent {
  event_id: string;
  topic: string;
  key: string;
  headers: Record<string, string>;
  payload: any;
}

describe('webhook endpoints API', () => {
  let stack: Stack;
  let db: DataSource;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let fakeDispatcherPort: number;

  const create = (body: unknown, key = merchant.test_key, headers: Record<string, string> = {}) =>
    stack.call('POST', '/api/v1/webhook-endpoints', { key, body, headers });
  const created = async (body: unknown = { url: PUBLIC_URL }, key = merchant.test_key) => {
    const res = await create(body, key);
    expect(res.status).toBe(201);
    return res.body;
  };
  const row = async (id: string) =>
    (await db.query(`SELECT * FROM gateway.webhook_endpoints WHERE id = $1`, [id]))[0] as Record<string, any>;
  // What the gateway published about an endpoint: once its outbox is drained (the relay deletes what it sent),
  // the endpoint's messages on the gateway topic, in order.
  const published = async (id: string): Promise<PublishedEvent[]> => {
    const unsent = async () => ((await db.query('SELECT count(*)::int AS n FROM gateway.outbox WHERE sent_at IS NULL')) as [{ n: number }])[0].n;
    await waitFor(async () => (await unsent()) === 0, 20_000, 'the gateway outbox drained', 50);
    const messages = await topicMessages(`${stack.namespace}.gateway.events.v1`);
    return messages
      .filter((message) => message.key === id)
      .map((message) => ({
        event_id: message.headers['event-id']!,
        topic: message.topic,
        key: message.key!,
        headers: message.headers,
        payload: JSON.parse(message.value!),
      }));
  };

  beforeAll(async () => {
    // NODE_ENV as a developer's machine has it, without WEBHOOK_ALLOW_INSECURE_TARGETS.
    fakeDispatcherPort = await freePort();
    stack = await startStack(['gateway'], { NODE_ENV: 'development', REQUEST_TIMEOUT_MS: '4000', WEBHOOKS_URL: `tcp://127.0.0.1:${fakeDispatcherPort}` });
    db = await stack.db.dataSource('gateway');
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    other = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates an endpoint, shows its secret once, and finds it without the secret', async () => {
    const res = await create({ url: PUBLIC_URL });
    expect(res.status).toBe(201);
    const endpoint = res.body;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^we_[A-Za-z0-9]{24}$/),
      object: 'webhook_endpoint',
      url: PUBLIC_URL,
      events: null,
      environment: 'test',
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      secret: expect.stringMatching(SECRET),
    });
    expect(Math.abs(Date.parse(endpoint.created_at) - Date.now())).toBeLessThan(60_000);

    const { secret, ...withoutSecret } = endpoint;
    const got = await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(withoutSecret);
    const list = await stack.call('GET', '/api/v1/webhook-endpoints', { key: merchant.test_key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data).toContainEqual(withoutSecret);
    expect(JSON.stringify([got.body, list.body])).not.toContain(secret);
  });

  it('stores the secret encrypted and publishes the created event with the snapshot', async () => {
    const endpoint = await created({ url: PUBLIC_V6_URL, events: ['payment_intent.succeeded', 'refund.completed'] });
    expect(endpoint.events).toEqual(['payment_intent.succeeded', 'refund.completed']);
    expect(endpoint.url).toBe(PUBLIC_V6_URL);

    const stored = await row(endpoint.id);
    expect(stored).toMatchObject({ merchant_id: merchant.merchant_id, environment: 'test', status: 'enabled', version: 1 });
    expect(stored.secret_encrypted).not.toContain(endpoint.secret);
    expect(stored.secret_encrypted).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(decryptSecret(stored.secret_encrypted, devKey)).toBe(endpoint.secret);

    const [event, ...more] = await published(endpoint.id);
    expect(more).toEqual([]);
    expect(event!.topic).toBe(`${stack.namespace}.gateway.events.v1`);
    expect(event!.payload).toMatchObject({
      id: event!.event_id,
      type: 'webhook_endpoint.created',
      schema_version: 1,
      aggregate_id: endpoint.id,
      aggregate_type: 'webhook_endpoint',
      sequence: 1,
      merchant_id: merchant.merchant_id,
      environment: 'test',
      data: {
        id: endpoint.id,
        merchant_id: merchant.merchant_id,
        environment: 'test',
        url: PUBLIC_V6_URL,
        events: ['payment_intent.succeeded', 'refund.completed'],
        status: 'enabled',
        secret_encrypted: stored.secret_encrypted,
        previous_secret_encrypted: null,
        previous_secret_expires_at: null,
        created_at: endpoint.created_at,
        updated_at: endpoint.created_at,
      },
    });
    expect(JSON.stringify(event!.payload)).not.toContain(endpoint.secret);
  });

  const badBodies: Array<[string, unknown, string | undefined]> = [
    ['url missing', { events: ['invoice.paid'] }, 'url'],
    ['url not a string', { url: 42 }, 'url'],
    ['url empty', { url: '' }, 'url'],
    ['url not absolute', { url: '/hooks' }, 'url'],
    ['url too long', { url: `https://93.184.216.34/${'x'.repeat(2048)}` }, 'url'],
    ['url over http', { url: 'http://93.184.216.34/hooks' }, 'url'],
    ['url with credentials', { url: 'https://user:pass@93.184.216.34/hooks' }, 'url'],
    ['events empty', { url: PUBLIC_URL, events: [] }, 'events'],
    ['events with an unknown type', { url: PUBLIC_URL, events: ['payment_intent.succeeded', 'charge.succeeded'] }, 'events'],
    ['events repeated', { url: PUBLIC_URL, events: ['invoice.paid', 'invoice.paid'] }, 'events'],
    ['events not an array', { url: PUBLIC_URL, events: 'invoice.paid' }, 'events'],
    ['events with an internal type', { url: PUBLIC_URL, events: ['webhook_endpoint.created'] }, 'events'],
    ['an unknown field', { url: PUBLIC_URL, description: 'shop' }, 'description'],
    ['a body that is not an object', [PUBLIC_URL], undefined],
  ];

  it.each(badBodies)('400 invalid_request for %s', async (_name, body, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'invalid_request', message: expect.any(String), ...(param ? { param } : {}), request_id: expect.any(String) },
    });
  });

  const refusedTargets = [
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://[::1]/hooks',
    'https://10.1.2.3/hooks',
    'https://172.16.0.9/hooks',
    'https://192.168.1.20/hooks',
    'https://100.64.0.1/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::1]/hooks',
    'https://[fe80::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://0.0.0.0/hooks',
    'https://224.0.0.1/hooks',
    'https://no-such-host.invalid/hooks',
  ];

  it.each(refusedTargets)('refuses %s: not a public target (development, insecure targets off)', async (url) => {
    const res = await create({ url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url', message: expect.stringMatching(/^url /) });
  });

  it('stores nothing and publishes nothing for a refused request', async () => {
    const fresh = await stack.createMerchant({ testLimit: 10000 });
    expect((await create({ url: 'https://10.0.0.1/x' }, fresh.test_key)).status).toBe(400);
    expect((await create({ url: PUBLIC_URL, extra: true }, fresh.test_key)).status).toBe(400);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM gateway.webhook_endpoints WHERE merchant_id = $1`, [
      fresh.merchant_id,
    ]);
    expect(count).toBe(0);
  });

  it('keeps merchants and environments apart: 404 for every route, lists show only their own', async () => {
    const endpoint = await created();
    const live = await created({ url: PUBLIC_URL }, merchant.live_key!);
    expect(live.environment).toBe('live');

    const strangers = [other.test_key, merchant.live_key!];
    for (const key of strangers) {
      const calls = [
        stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key }),
        stack.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, { key }),
        stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key }),
        stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/enable`, { key }),
        stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key }),
        stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/wd_abc/resend`, { key }),
        stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/test`, { key }),
        stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, {
          key,
          body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() },
        }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'not_found' });
      }
    }
    const otherList = await stack.call('GET', '/api/v1/webhook-endpoints', { key: other.test_key });
    expect(otherList.body.data).toEqual([]);
    const liveList = await stack.call('GET', '/api/v1/webhook-endpoints', { key: merchant.live_key! });
    expect(liveList.body.data.map((e: { id: string }) => e.id)).toEqual([live.id]);
    const testList = await stack.call('GET', '/api/v1/webhook-endpoints', { key: merchant.test_key });
    expect(testList.body.data.map((e: { id: string }) => e.id)).not.toContain(live.id);

    // Untouched by all of that.
    expect(await row(endpoint.id)).toMatchObject({ status: 'enabled', version: 1 });
    for (const malformed of ['we_short', 'pi_test_abc', 'WE_' + 'a'.repeat(24)]) {
      const res = await stack.call('GET', `/api/v1/webhook-endpoints/${malformed}`, { key: merchant.test_key });
      expect(res.status).toBe(404);
    }
  });

  it('deletes an endpoint: 200 {id, deleted}, then 404 everywhere, and a deleted event', async () => {
    const endpoint = await created();
    const res = await stack.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });

    expect((await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key })).status).toBe(404);
    expect((await stack.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key })).status).toBe(404);
    expect((await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key: merchant.test_key })).status).toBe(404);
    const list = await stack.call('GET', '/api/v1/webhook-endpoints', { key: merchant.test_key });
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);

    expect(await row(endpoint.id)).toMatchObject({ status: 'deleted', version: 2 });
    const events = await published(endpoint.id);
    expect(events.map((e) => [e.payload.type, e.payload.sequence, e.payload.data.status])).toEqual([
      ['webhook_endpoint.created', 1, 'enabled'],
      ['webhook_endpoint.deleted', 2, 'disabled'],
    ]);
  });

  it('rolls the secret: the new one shown once, the old one signing 24 h more, both encrypted', async () => {
    const endpoint = await created();
    const before = Date.now();
    const res = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key: merchant.test_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: endpoint.id, object: 'webhook_endpoint', status: 'enabled', secret: expect.stringMatching(SECRET) });
    expect(res.body.secret).not.toBe(endpoint.secret);
    const expiresAt = Date.parse(res.body.previous_secret_expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000 + 1000);

    const stored = await row(endpoint.id);
    expect(decryptSecret(stored.secret_encrypted, devKey)).toBe(res.body.secret);
    expect(decryptSecret(stored.previous_secret_encrypted, devKey)).toBe(endpoint.secret);
    expect(stored.version).toBe(2);

    const got = await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key });
    expect(got.body.secret).toBeUndefined();
    expect(got.body.previous_secret_expires_at).toBe(res.body.previous_secret_expires_at);

    const [, updated] = await published(endpoint.id);
    expect(updated!.payload).toMatchObject({
      type: 'webhook_endpoint.updated',
      sequence: 2,
      data: {
        secret_encrypted: stored.secret_encrypted,
        previous_secret_encrypted: stored.previous_secret_encrypted,
        previous_secret_expires_at: res.body.previous_secret_expires_at,
      },
    });
    expect(JSON.stringify(updated!.payload)).not.toContain(res.body.secret);
    expect(JSON.stringify(updated!.payload)).not.toContain(endpoint.secret);
  });

  it('ends the overlap sooner with expires_in_hours (0 = at once) and validates it', async () => {
    const endpoint = await created();
    const roll = (body?: unknown) =>
      stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key: merchant.test_key, body });
    const oneHour = await roll({ expires_in_hours: 1 });
    expect(oneHour.status).toBe(200);
    expect(Math.abs(Date.parse(oneHour.body.previous_secret_expires_at) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    const now = await roll({ expires_in_hours: 0 });
    expect(now.status).toBe(200);
    expect(now.body.previous_secret_expires_at).toBeNull();
    expect(await row(endpoint.id)).toMatchObject({ previous_secret_encrypted: null, previous_secret_expires_at: null, version: 3 });

    for (const [body, param] of [
      [{ expires_in_hours: 25 }, 'expires_in_hours'],
      [{ expires_in_hours: -1 }, 'expires_in_hours'],
      [{ expires_in_hours: 1.5 }, 'expires_in_hours'],
      [{ expires_in_hours: '2' }, 'expires_in_hours'],
      [{ hours: 2 }, 'hours'],
    ] as const) {
      const res = await roll(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    expect((await row(endpoint.id)).version).toBe(3);
  });

  it('enables an endpoint again with an updated event', async () => {
    const endpoint = await created();
    const res = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/enable`, { key: merchant.test_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: endpoint.id, status: 'enabled' });
    expect(res.body.secret).toBeUndefined();
    const events = await published(endpoint.id);
    expect(events.map((e) => [e.payload.type, e.payload.sequence])).toEqual([
      ['webhook_endpoint.created', 1],
      ['webhook_endpoint.updated', 2],
    ]);
  });

  describe('updates', () => {
    // A merchant of their own: these tests create more endpoints than one environment holds beside the others'.
    let owner: TestMerchant;
    const update = (id: string, body: unknown, key = owner.test_key, headers: Record<string, string> = {}) =>
      stack.call('PATCH', `/api/v1/webhook-endpoints/${id}`, { key, body, headers });
    const ownEndpoint = (body: unknown = { url: PUBLIC_URL }) => created(body, owner.test_key);

    beforeAll(async () => {
      owner = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    });

    it('changes the address and the event types: the resource without its secret, one updated event per change', async () => {
      const endpoint = await ownEndpoint({ url: PUBLIC_URL, events: ['payment_intent.succeeded'] });
      const { secret, ...before } = endpoint;

      const moved = await update(endpoint.id, { url: PUBLIC_V6_URL });
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ ...before, url: PUBLIC_V6_URL });
      const widened = await update(endpoint.id, { events: ['payment_intent.succeeded', 'invoice.paid'] });
      expect(widened.status).toBe(200);
      expect(widened.body).toEqual({ ...before, url: PUBLIC_V6_URL, events: ['payment_intent.succeeded', 'invoice.paid'] });
      const everything = await update(endpoint.id, { events: null });
      expect(everything.body).toEqual({ ...before, url: PUBLIC_V6_URL, events: null });
      const both = await update(endpoint.id, { url: PUBLIC_URL, events: ['refund.completed'] });
      expect(both.body).toEqual({ ...before, events: ['refund.completed'] });
      expect(JSON.stringify([moved.body, widened.body, everything.body, both.body])).not.toContain(secret);
      expect((await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: owner.test_key })).body).toEqual(both.body);

      // The secret and the status stay; each change is a version the dispatcher receives with the whole snapshot.
      const stored = await row(endpoint.id);
      expect(stored).toMatchObject({ url: PUBLIC_URL, events: ['refund.completed'], status: 'enabled', version: 5 });
      expect(decryptSecret(stored.secret_encrypted, devKey)).toBe(secret);
      const events = await published(endpoint.id);
      expect(events.map((e) => [e.payload.type, e.payload.sequence, e.payload.data.url, e.payload.data.events])).toEqual([
        ['webhook_endpoint.created', 1, PUBLIC_URL, ['payment_intent.succeeded']],
        ['webhook_endpoint.updated', 2, PUBLIC_V6_URL, ['payment_intent.succeeded']],
        ['webhook_endpoint.updated', 3, PUBLIC_V6_URL, ['payment_intent.succeeded', 'invoice.paid']],
        ['webhook_endpoint.updated', 4, PUBLIC_V6_URL, null],
        ['webhook_endpoint.updated', 5, PUBLIC_URL, ['refund.completed']],
      ]);
    });

    it('changes nothing for settings the endpoint has already: a retry is harmless', async () => {
      const endpoint = await ownEndpoint({ url: PUBLIC_URL, events: ['payment_intent.succeeded', 'invoice.paid'] });
      for (const same of [{ url: PUBLIC_URL }, { events: ['invoice.paid', 'payment_intent.succeeded'] }, { url: PUBLIC_URL, events: ['payment_intent.succeeded', 'invoice.paid'] }]) {
        const res = await update(endpoint.id, same);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ url: PUBLIC_URL, events: ['payment_intent.succeeded', 'invoice.paid'] });
      }
      expect((await row(endpoint.id)).version).toBe(1);
      expect((await published(endpoint.id)).map((e) => e.payload.type)).toEqual(['webhook_endpoint.created']);

      // Under an Idempotency-Key: the same answer again, another body with the key is a conflict.
      const key = randomUUID();
      const first = await update(endpoint.id, { url: PUBLIC_V6_URL }, owner.test_key, { 'idempotency-key': key });
      const again = await update(endpoint.id, { url: PUBLIC_V6_URL }, owner.test_key, { 'idempotency-key': key });
      expect(first.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const other = await update(endpoint.id, { url: PUBLIC_URL }, owner.test_key, { 'idempotency-key': key });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_key_reused');
      expect((await row(endpoint.id)).version).toBe(2);
    });

    it.each([
      ['nothing to change', {}, undefined],
      ['an unknown field', { url: PUBLIC_URL, secret: 'whsec_x' }, undefined],
      ['a null url', { url: null }, 'url'],
      ['an empty url', { url: '' }, 'url'],
      ['a private address', { url: 'https://10.1.2.3/hooks' }, 'url'],
      ['plain http', { url: 'http://93.184.216.34/hooks' }, 'url'],
      ['an unknown event type', { events: ['payment_intent.teleported'] }, 'events'],
      ['no event types', { events: [] }, 'events'],
      ['a repeated type', { events: ['invoice.paid', 'invoice.paid'] }, 'events'],
    ])('refuses an update with %s, and changes nothing', async (_what, body, param) => {
      const endpoint = await ownEndpoint({ url: PUBLIC_URL });
      const res = await update(endpoint.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.any(String), ...(param ? { param } : {}) });
      expect(await row(endpoint.id)).toMatchObject({ url: PUBLIC_URL, events: null, version: 1 });
    });

    it('updates only an endpoint of the key: another merchant, the other environment and a deleted one are not found', async () => {
      const endpoint = await ownEndpoint();
      for (const key of [other.test_key, owner.live_key!]) {
        const res = await update(endpoint.id, { url: PUBLIC_V6_URL }, key);
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'not_found' });
      }
      expect((await update('we_short', { url: PUBLIC_V6_URL })).status).toBe(404);
      expect(await row(endpoint.id)).toMatchObject({ url: PUBLIC_URL, version: 1 });
      expect((await stack.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: owner.test_key })).status).toBe(200);
      expect((await update(endpoint.id, { url: PUBLIC_V6_URL })).status).toBe(404);
    });
  });

  it('accepts an Idempotency-Key without requiring one', async () => {
    const key = randomUUID();
    const first = await create({ url: PUBLIC_URL }, merchant.test_key, { 'idempotency-key': key });
    const again = await create({ url: PUBLIC_URL }, merchant.test_key, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await create({ url: PUBLIC_V6_URL }, merchant.test_key, { 'idempotency-key': key });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('idempotency_key_reused');

    const a = await created();
    const b = await created();
    expect(a.id).not.toBe(b.id);
  });

  it('keeps the replay records of create and roll encrypted: Redis never holds a signing secret', async () => {
    const redis = new Redis(REDIS_URL);
    const record = (key: string) => redis.hgetall(`${stack.namespace}:idempotency:${merchant.merchant_id}:test:${key}`);
    const inClear = (fields: Record<string, string>, secret: string) =>
      Object.values(fields).some((value) => value.includes(secret) || Buffer.from(value, 'base64').toString('utf8').includes(secret));
    try {
      const createKey = randomUUID();
      const first = await create({ url: PUBLIC_URL }, merchant.test_key, { 'idempotency-key': createKey });
      expect(first.status).toBe(201);
      const stored = await record(createKey);
      expect(stored).toMatchObject({ state: 'done', sealed: '1' });
      expect(inClear(stored, first.body.secret)).toBe(false);
      const again = await create({ url: PUBLIC_URL }, merchant.test_key, { 'idempotency-key': createKey });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);

      const rollKey = randomUUID();
      const roll = () =>
        stack.call('POST', `/api/v1/webhook-endpoints/${first.body.id}/roll-secret`, { key: merchant.test_key, headers: { 'idempotency-key': rollKey } });
      const rolled = await roll();
      expect(rolled.status).toBe(200);
      expect(inClear(await record(rollKey), rolled.body.secret)).toBe(false);
      const replayed = await roll();
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body.secret).toBe(rolled.body.secret);
    } finally {
      redis.disconnect();
    }
  });

  it('creates one endpoint per Idempotency-Key even when the replay record is gone', async () => {
    const key = randomUUID();
    const first = await create({ url: PUBLIC_URL, events: ['invoice.paid'] }, merchant.test_key, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.del(`${stack.namespace}:idempotency:${merchant.merchant_id}:test:${key}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const again = await create({ url: PUBLIC_URL, events: ['invoice.paid'] }, merchant.test_key, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    // The same endpoint, but its secret is not shown again (see the next test).
    expect(again.body).toEqual({ ...first.body, secret: null });
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM gateway.webhook_endpoints WHERE idempotency_key = $1`, [key]);
    expect(count).toBe(1);
    expect(await published(first.body.id)).toHaveLength(1);
  });

  it('shows a secret once: a create replayed after its replay record is gone never reveals it, not even after rolls', async () => {
    // A merchant of its own: the others' endpoint counts are near the limit other tests check.
    const owner = await stack.createMerchant({ testLimit: 10000 });
    const key = randomUUID();
    const first = await create({ url: `${PUBLIC_URL}/once` }, owner.test_key, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const rolled = await stack.call('POST', `/api/v1/webhook-endpoints/${first.body.id}/roll-secret`, { key: owner.test_key });
    expect(rolled.status).toBe(200);
    const redis = new Redis(REDIS_URL);
    try {
      // As 24 h later: the replay record has expired.
      expect(await redis.del(`${stack.namespace}:idempotency:${owner.merchant_id}:test:${key}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const late = await create({ url: `${PUBLIC_URL}/once` }, owner.test_key, { 'idempotency-key': key });
    expect(late.status).toBe(201);
    expect(late.body).toMatchObject({ id: first.body.id, secret: null });
    const text = JSON.stringify(late.body);
    expect(text).not.toContain(first.body.secret);
    expect(text).not.toContain(rolled.body.secret);
  });

  it('rolls once per Idempotency-Key even when the replay record is lost (Redis away, a crash before it was written)', async () => {
    const owner = await stack.createMerchant({ testLimit: 10000 });
    const endpoint = (await create({ url: `${PUBLIC_URL}/roll-once` }, owner.test_key)).body;
    const original = (await row(endpoint.id)).secret_encrypted;
    const rollKey = randomUUID();
    const roll = (key = rollKey) =>
      stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key: owner.test_key, headers: { 'idempotency-key': key } });
    const dropRecord = async (key: string) => {
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.del(`${stack.namespace}:idempotency:${owner.merchant_id}:test:${key}`)).toBe(1);
      } finally {
        redis.disconnect();
      }
    };
    const rolled = await roll();
    expect(rolled.status).toBe(200);
    await dropRecord(rollKey);
    const retried = await roll();
    expect(retried.status).toBe(200);
    // The same roll's secret, and the original still the previous one: S0 -> S1, never S0 -> S1 -> S2.
    expect(retried.body.secret).toBe(rolled.body.secret);
    expect((await row(endpoint.id)).previous_secret_encrypted).toBe(original);
    expect((await published(endpoint.id)).map((e) => e.payload.type)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.updated']);
    // The key is that roll's: another action under it is a conflict, even without the replay record.
    const enableWithRollKey = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/enable`, {
      key: owner.test_key,
      headers: { 'idempotency-key': rollKey },
    });
    expect(enableWithRollKey.status).toBe(409);
    expect(enableWithRollKey.body.error.code).toBe('idempotency_key_reused');
    const enableKey = randomUUID();
    const enable = () => stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/enable`, { key: owner.test_key, headers: { 'idempotency-key': enableKey } });
    expect((await enable()).status).toBe(200);
    await dropRecord(enableKey);
    expect((await enable()).status).toBe(200);
    // Created, rolled, enabled: one event each.
    expect((await published(endpoint.id)).length).toBe(3);
  });

  it('limits a merchant to 16 endpoints per environment', async () => {
    const fresh = await stack.createMerchant({ testLimit: 10000 });
    for (let i = 0; i < 16; i += 1) await created({ url: `${PUBLIC_URL}/${i}` }, fresh.test_key);
    const refused = await create({ url: PUBLIC_URL }, fresh.test_key);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
    const list = await stack.call('GET', '/api/v1/webhook-endpoints', { key: fresh.test_key });
    expect(list.body.data.map((e: { url: string }) => e.url)).toEqual(Array.from({ length: 16 }, (_, i) => `${PUBLIC_URL}/${i}`));
    await stack.call('DELETE', `/api/v1/webhook-endpoints/${list.body.data[0].id}`, { key: fresh.test_key });
    await created({ url: PUBLIC_URL }, fresh.test_key);
  });

  it('publishes the events to the gateway topic, keyed by endpoint, in version order', async () => {
    const endpoint = await created();
    await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`, { key: merchant.test_key });
    await stack.call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: merchant.test_key });
    const mine = await published(endpoint.id);
    expect(mine.map((e) => [e.topic, e.payload.type, e.payload.sequence])).toEqual([
      [`${stack.namespace}.gateway.events.v1`, 'webhook_endpoint.created', 1],
      [`${stack.namespace}.gateway.events.v1`, 'webhook_endpoint.updated', 2],
      [`${stack.namespace}.gateway.events.v1`, 'webhook_endpoint.deleted', 3],
    ]);
    expect(mine[0]!.headers).toMatchObject({ 'event-type': 'webhook_endpoint.created', 'event-id': mine[0]!.payload.id });
  });

  it('describes every route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(operations).toEqual(
      expect.arrayContaining([
        'createWebhookEndpoint',
        'listWebhookEndpoints',
        'getWebhookEndpoint',
        'deleteWebhookEndpoint',
        'updateWebhookEndpoint',
        'rollWebhookEndpointSecret',
        'enableWebhookEndpoint',
        'listWebhookDeliveries',
        'resendWebhookDelivery',
        'replayWebhookEvents',
        'sendWebhookTestEvent',
      ]),
    );
    const create = doc.paths['/api/v1/webhook-endpoints']!.post;
    expect(create.responses['201'].content['application/json'].schema.required).toContain('secret');
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    const get = doc.paths['/api/v1/webhook-endpoints/{id}']!.get;
    expect(Object.keys(get.responses['200'].content['application/json'].schema.properties)).not.toContain('secret');
  });

  describe('delivery routes, forwarded to the dispatcher', () => {
    let fakeDispatcher: CommandServer;
    const received: Array<{ topic: string; body: any }> = [];
    let answer: (topic: string, body: any) => unknown = () => ({ ok: true, data: {} });

    // Stands in for the webhook-dispatcher's command port (the transport's own server, handshake and all): records
    // each command and answers what the test says.
    beforeAll(async () => {
      fakeDispatcher = new CommandServer({ port: fakeDispatcherPort, host: '127.0.0.1', secrets: [DEVELOPMENT_COMMAND_SECRET] });
      for (const topic of Object.values(WEBHOOKS_COMMANDS)) {
        fakeDispatcher.addHandler(commandPattern(WEBHOOKS_SERVICE, topic), async (request: RpcRequest) => {
          received.push({ topic, body: request.body });
          return answer(topic, request.body);
        });
      }
      await new Promise<void>((resolve, reject) => fakeDispatcher.listen((error) => (error ? reject(error) : resolve())));
    });

    afterAll(async () => {
      await fakeDispatcher?.close();
    });

    const delivery = (endpointId: string) => ({
      id: 'wd_1',
      object: 'webhook_delivery',
      endpoint_id: endpointId,
      event_id: 'evt_1',
      event_type: 'invoice.paid',
      status: 'pending',
      attempt_count: 1,
      next_attempt_at: null,
      created_at: new Date().toISOString(),
      attempts: [],
    });

    it('lists deliveries with limit and starting_after, scoped to the endpoint', async () => {
      const endpoint = await created();
      answer = (_topic, body) => ({ ok: true, data: { object: 'list', data: [delivery(body.endpoint_id)], has_more: false } });
      const res = await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=10&starting_after=wd_9`, {
        key: merchant.test_key,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'list', data: [delivery(endpoint.id)].map((d) => ({ ...d, created_at: expect.any(String) })), has_more: false });
      expect(received.at(-1)).toEqual({
        topic: 'deliveries.list',
        body: { merchant_id: merchant.merchant_id, environment: 'test', endpoint_id: endpoint.id, limit: 10, starting_after: 'wd_9' },
      });

      const defaults = await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: merchant.test_key });
      expect(defaults.status).toBe(200);
      expect(received.at(-1)!.body).toEqual({ merchant_id: merchant.merchant_id, environment: 'test', endpoint_id: endpoint.id, limit: 50 });

      const sent = received.length;
      for (const query of ['limit=0', 'limit=101', 'limit=ten', 'starting_after=evt_1', 'page=2']) {
        const bad = await stack.call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries?${query}`, { key: merchant.test_key });
        expect(bad.status).toBe(400);
        expect(bad.body.error.code).toBe('invalid_request');
      }
      expect(received.length).toBe(sent);
    });

    it('resends one delivery, sends a test event, and passes the dispatcher errors on', async () => {
      const endpoint = await created();
      answer = (_topic, body) => ({ ok: true, data: delivery(body.endpoint_id) });
      const resend = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/wd_1/resend`, { key: merchant.test_key });
      expect(resend.status).toBe(200);
      expect(resend.body).toMatchObject({ id: 'wd_1', endpoint_id: endpoint.id });
      expect(received.at(-1)).toEqual({
        topic: 'deliveries.resend',
        body: { merchant_id: merchant.merchant_id, environment: 'test', endpoint_id: endpoint.id, delivery_id: 'wd_1' },
      });

      const test = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/test`, { key: merchant.test_key });
      expect(test.status).toBe(200);
      expect(received.at(-1)).toEqual({
        topic: 'endpoints.test',
        body: { merchant_id: merchant.merchant_id, environment: 'test', endpoint_id: endpoint.id },
      });

      answer = () => ({ ok: false, error: { code: 'not_found', message: 'No webhook delivery wd_2.', param: 'delivery_id' } });
      const missing = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/wd_2/resend`, { key: merchant.test_key });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'not_found', param: 'delivery_id' });

      const sent = received.length;
      const malformed = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/evt_1/resend`, { key: merchant.test_key });
      expect(malformed.status).toBe(404);
      expect(received.length).toBe(sent);
    });

    it('replays a range of the last 30 days and refuses other ranges without asking', async () => {
      const endpoint = await created();
      answer = (_topic, body) => ({ ok: true, data: { object: 'webhook_replay', endpoint_id: body.endpoint_id, from: body.from, to: body.to, scheduled: 3 } });
      const from = new Date(Date.now() - 2 * 86_400_000);
      const to = new Date(Date.now() - 86_400_000);
      const res = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, {
        key: merchant.test_key,
        body: { from: from.toISOString(), to: to.toISOString() },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'webhook_replay', endpoint_id: endpoint.id, from: from.toISOString(), to: to.toISOString(), scheduled: 3 });
      expect(received.at(-1)).toEqual({
        topic: 'endpoints.replay',
        body: { merchant_id: merchant.merchant_id, environment: 'test', endpoint_id: endpoint.id, from: from.toISOString(), to: to.toISOString() },
      });

      const sent = received.length;
      const day = 86_400_000;
      const iso = (ms: number) => new Date(ms).toISOString();
      for (const [body, param] of [
        [{ from: iso(Date.now() - day), to: iso(Date.now() - 2 * day) }, 'from'],
        [{ from: iso(Date.now() - 31 * day), to: iso(Date.now() - day) }, 'from'],
        [{ from: iso(Date.now() + day), to: iso(Date.now() + 2 * day) }, 'from'],
        [{ from: '2025-01-01', to: iso(Date.now()) }, 'from'],
        [{ from: iso(Date.now() - day) }, 'to'],
        [{ from: iso(Date.now() - day), to: iso(Date.now()), all: true }, 'all'],
      ] as const) {
        const bad = await stack.call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/replay`, { key: merchant.test_key, body });
        expect(bad.status).toBe(400);
        expect(bad.body.error).toMatchObject({ code: 'invalid_request', param });
      }
      expect(received.length).toBe(sent);
    });
  });

  describe('settings', () => {
    let insecure: RunningService | undefined;

    afterAll(async () => {
      await insecure?.stop();
    });

    it('with WEBHOOK_ALLOW_INSECURE_TARGETS=1 accepts http and loopback, never private addresses', async () => {
      insecure = await startService('gateway', {
        DATABASE_URL: stack.db.url,
        KAFKA_NAMESPACE: uniqueName('insecure'),
        PORT: String(await freePort()),
        WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      });
      const post = (url: string) =>
        fetch(`${insecure!.url}/api/v1/webhook-endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
      expect((await post('http://127.0.0.1:4000/hooks')).status).toBe(201);
      expect((await post('https://localhost:4000/hooks')).status).toBe(201);
      for (const url of ['http://10.0.0.5/hooks', 'https://169.254.169.254/', 'https://192.168.0.2/hooks']) {
        const res = await post(url);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { param: string } }).error.param).toBe('url');
      }
    });

    it('slow DNS class: a host name on a name server that drops queries is refused on the resolver timeout, and the gateway keeps answering meanwhile', async () => {
      const dns = await startTestDnsServer({ zone: { 'hooks.shop.test': ['93.184.216.34'] }, drops: (name) => name.endsWith('.dropped.test') });
      const resolving = await startService('gateway', {
        DATABASE_URL: stack.db.url,
        KAFKA_NAMESPACE: uniqueName('dns'),
        PORT: String(await freePort()),
        WEBHOOK_DNS_SERVERS: dns.address,
        WEBHOOK_DNS_TIMEOUT_MS: '500',
        WEBHOOK_DNS_TRIES: '2',
      });
      // A merchant of its own: the others here are near the limit of active endpoints.
      const fresh = await stack.createMerchant({ testLimit: 10000 });
      try {
        const post = (url: string) =>
          fetch(`${resolving.url}/api/v1/webhook-endpoints`, {
            method: 'POST',
            headers: { authorization: `Bearer ${fresh.test_key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ url }),
          });
        expect((await post('https://hooks.shop.test/payments')).status).toBe(201);
        // More dropped names than libuv has threads: getaddrinfo would have held all four.
        const stuck = Array.from({ length: 6 }, (_, i) => post(`https://e${i}.dropped.test/hooks`));
        await waitFor(async () => dns.dropped() >= 4, 5000);
        const list = await fetch(`${resolving.url}/api/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${other.test_key}` } });
        expect(list.status).toBe(200);
        for (const res of await Promise.all(stuck)) {
          expect(res.status).toBe(400);
          expect(((await res.json()) as { error: { param: string; message: string } }).error).toMatchObject({
            param: 'url',
            message: expect.stringContaining('could not be resolved'),
          });
        }
        expect(dns.queries.some((q) => q.endsWith(' hooks.shop.test'))).toBe(true);
      } finally {
        await resolving.stop();
        await dns.close();
      }
    });

    it('refuses to start in production with the development key or insecure targets', async () => {
      const start = async (env: Record<string, string>) =>
        exitOf(
          await startService(
            'gateway',
            { DATABASE_URL: stack.db.url, KAFKA_NAMESPACE: uniqueName('prod'), PORT: String(await freePort()), NODE_ENV: 'production', ...env },
            { waitReady: false },
          ),
        );
      const developmentKey = await start({});
      expect(developmentKey.code).toBe(1);
      expect(developmentKey.output).toContain('WEBHOOK_SECRETS_KEY');
      const insecureTargets = await start({ WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'), WEBHOOK_ALLOW_INSECURE_TARGETS: '1' });
      expect(insecureTargets.code).toBe(1);
      expect(insecureTargets.output).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS');
      expect(insecureTargets.output).not.toContain(Buffer.alloc(32, 9).toString('base64'));
    });
  });
});
