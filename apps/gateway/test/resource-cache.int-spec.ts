import { randomUUID } from 'node:crypto';
import { deadLetterTopic, STREAMS, topicName } from '@payments/events';
import { collectMessages, Stack, startStack, testKafka, TestMerchant, uniqueName, waitFor } from '@payments/testing';
import { Redis } from 'ioredis';
import type { ServiceClient } from '@payments/platform';
import { ResourceCache } from '../src/resource-cache/resource-cache';
import { SessionsClient } from '../src/sessions-client/sessions.client';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The gateway's read model of intents and invoices (Redis): generations make a fill that raced a change lose.
describe('ResourceCache (real Redis)', () => {
  const redis = new Redis(REDIS_URL);
  const cache = new ResourceCache(redis, uniqueName('cache'), 60);
  const key = { merchantId: 'mer_1', environment: 'test', id: 'pi_test_1' };

  afterAll(() => redis.disconnect());

  it('misses, fills, hits; a change drops it', async () => {
    const miss = await cache.lookup(key);
    expect(miss).toEqual({ hit: false, generation: '' });
    await cache.fill(key, '', { v: 1 });
    expect(await cache.lookup(key)).toEqual({ hit: true, resource: { v: 1 } });
    await cache.invalidate([key]);
    expect(await cache.lookup(key)).toEqual({ hit: false, generation: '1' });
  });

  it('refuses a fill whose fetch raced a change, and takes one fetched after it', async () => {
    const other = { ...key, id: 'pi_test_2' };
    const before = await cache.lookup(other); // a GET misses and asks sessions ...
    await cache.invalidate([other]); // ... meanwhile a change lands and invalidates ...
    await cache.fill(other, (before as { generation: string }).generation, { v: 'old' }); // ... the old answer must not stay
    expect(await cache.lookup(other)).toEqual({ hit: false, generation: '1' });
    await cache.fill(other, '1', { v: 'new' });
    expect(await cache.lookup(other)).toEqual({ hit: true, resource: { v: 'new' } });
  });

  it('drops a cached session when the checkout sends its customer to the provider (the session moved on)', async () => {
    // The command's answer is all this needs of sessions; the cache is the real one.
    const services = { request: async () => ({ redirect_url: 'https://pay.example/tx' }) } as unknown as ServiceClient;
    const client = new SessionsClient(services, cache);
    const session = { ...key, id: 'pi_test_3' };
    await cache.fill(session, '', { id: session.id, status: 'requires_payment_method' });
    await client.startProviderPayment(session.id, 'lahza', { merchant_id: session.merchantId, environment: session.environment }, { correlationId: 'test' });
    expect(await cache.lookup(session)).toEqual({ hit: false, generation: '1' });
  });

  it('is off with a TTL of 0 and degrades to misses when Redis is unreachable', async () => {
    expect(await new ResourceCache(redis, 'off', 0).lookup(key)).toBeNull();
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const unreachable = new ResourceCache(down, 'x', 60);
    expect(await unreachable.lookup(key)).toBeNull();
    await expect(unreachable.fill(key, '', {})).resolves.toBeUndefined();
    await expect(unreachable.invalidate([key])).rejects.toThrow();
    down.disconnect();
  });
});

// Through the running gateway and sessions: what merchants see of the read model.
describe('GETs answered from the gateway read model', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const redis = new Redis(REDIS_URL);

  const post = (path: string, body: unknown, key = merchant.test_key) =>
    stack.call('POST', path, { key, body, headers: { 'idempotency-key': randomUUID() } });
  const get = (path: string, key = merchant.test_key) => stack.call('GET', path, { key });
  const cacheKey = (id: string) => `${stack.namespace}:resource:${id}`;

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway'], { REQUEST_TIMEOUT_MS: '1500' });
    merchant = await stack.createMerchant({ verified: true, testLimit: 10000, liveLimit: 10000 });
    other = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    redis.disconnect();
    await stack?.stop();
  });

  it('a GET right after each change shows it (create, simulate, cancel; intents and invoices)', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '10.00', currency: 'USD' })).body;
    expect((await get(`/api/v1/payment-intents/${intent.id}`)).body).toEqual(intent);
    expect(await redis.hexists(cacheKey(intent.id), 'b')).toBe(1);

    const failed = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'failed' });
    expect((await get(`/api/v1/payment-intents/${intent.id}`)).body).toEqual(failed.body);
    expect(failed.body.status).toBe('failed');
    const paid = await post(`/api/v1/payment-intents/${intent.id}/simulate`, { result: 'succeeded', method: 'lahza' });
    const afterPaid = (await get(`/api/v1/payment-intents/${intent.id}`)).body;
    expect(afterPaid).toEqual(paid.body);
    expect(afterPaid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza' });

    const toCancel = (await post('/api/v1/payment-intents', { amount: '11.00', currency: 'USD' })).body;
    await get(`/api/v1/payment-intents/${toCancel.id}`);
    await post(`/api/v1/payment-intents/${toCancel.id}/cancel`, {});
    expect((await get(`/api/v1/payment-intents/${toCancel.id}`)).body.status).toBe('cancelled');

    const invoice = (await post('/api/v1/invoices', { amount: '12.00', currency: 'USD', customer: { name: 'Ada', phone: '+970599123456' } })).body;
    expect((await get(`/api/v1/invoices/${invoice.id}`)).body).toEqual(invoice);
    await post(`/api/v1/invoices/${invoice.id}/simulate`, { result: 'paid' });
    expect((await get(`/api/v1/invoices/${invoice.id}`)).body.status).toBe('paid');
  });

  it('never shows a cached resource to the other environment or another merchant', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '13.00', currency: 'USD' })).body;
    expect((await get(`/api/v1/payment-intents/${intent.id}`)).status).toBe(200);
    expect((await get(`/api/v1/payment-intents/${intent.id}`, merchant.live_key)).status).toBe(404);
    expect((await get(`/api/v1/payment-intents/${intent.id}`, other.test_key)).status).toBe(404);
  });

  it('reads a cached live session past its expires_at as expired', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '14.00', currency: 'USD' })).body;
    await get(`/api/v1/payment-intents/${intent.id}`);
    // As if the minutes had passed: the cached copy's expires_at moves to the past.
    await redis.hset(cacheKey(intent.id), 'b', JSON.stringify({ ...intent, expires_at: new Date(Date.now() - 1000).toISOString() }));
    expect((await get(`/api/v1/payment-intents/${intent.id}`)).body.status).toBe('expired');
  });

  it('drops a cached resource when a sessions event says it changed (changes made inside sessions)', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '15.00', currency: 'USD' })).body;
    await get(`/api/v1/payment-intents/${intent.id}`);
    expect(await redis.hexists(cacheKey(intent.id), 'b')).toBe(1);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({
      topic: topicName(stack.namespace, STREAMS.sessions),
      messages: [
        {
          key: intent.id,
          value: JSON.stringify({
            id: `evt_${randomUUID().replace(/-/g, '')}`,
            type: 'payment_intent.expired',
            aggregate_type: 'payment_intent',
            aggregate_id: intent.id,
            merchant_id: merchant.merchant_id,
            environment: 'test',
          }),
        },
      ],
    });
    await producer.disconnect();
    await waitFor(async () => (await redis.hexists(cacheKey(intent.id), 'b')) === 0, 20000, 'the cached intent to be dropped');
    expect((await get(`/api/v1/payment-intents/${intent.id}`)).body).toEqual(intent);
  });

  it('swallowed-error class: an unreadable sessions event is dead-lettered and its cached resource dropped', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '15.50', currency: 'USD' })).body;
    await get(`/api/v1/payment-intents/${intent.id}`);
    expect(await redis.hexists(cacheKey(intent.id), 'b')).toBe(1);
    const topic = topicName(stack.namespace, STREAMS.sessions);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: intent.id, value: '{"type":"payment_intent.succeeded", truncated' }] });
    await producer.disconnect();
    await waitFor(async () => (await redis.hexists(cacheKey(intent.id), 'b')) === 0, 20000, 'the cached intent to be dropped');
    const [parked] = await collectMessages(deadLetterTopic(topic), 1);
    expect(parked).toMatchObject({ key: intent.id, headers: expect.objectContaining({ 'dlq-reason': 'not a readable event', 'dlq-consumer': 'gateway.resource-cache' }) });
    const metrics = await fetch(`${stack.services.gateway!.opsUrl}/metrics`).then((res) => res.text());
    expect(metrics).toMatch(/^resource_invalidation_malformed_events_total 1$/m);
  });

  it('never answers a cached resource to another merchant', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '15.75', currency: 'USD' })).body;
    await get(`/api/v1/payment-intents/${intent.id}`);
    expect(await redis.hexists(cacheKey(intent.id), 'b')).toBe(1);
    expect((await get(`/api/v1/payment-intents/${intent.id}`, other.test_key)).status).toBe(404);
  });

  // Last: stops sessions.
  it('answers GETs of cached resources while sessions is down; anything else is 503', async () => {
    const intent = (await post('/api/v1/payment-intents', { amount: '16.00', currency: 'USD' })).body;
    const uncached = (await post('/api/v1/payment-intents', { amount: '17.00', currency: 'USD' })).body;
    await redis.hdel(cacheKey(uncached.id), 'b');
    await get(`/api/v1/payment-intents/${intent.id}`);
    await stack.services.sessions!.stop();

    const cached = await get(`/api/v1/payment-intents/${intent.id}`);
    expect(cached.status).toBe(200);
    expect(cached.body).toEqual(intent);
    const missed = await get(`/api/v1/payment-intents/${uncached.id}`);
    expect(missed.status).toBe(503);
    expect(missed.body.error.code).toBe('service_unavailable');
  });
});
