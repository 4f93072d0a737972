import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// The gateway's endpoint settings as the webhook-dispatcher sees them: the secret the merchant got at creation
// signs what the dispatcher sends (decrypted from the event), a rolled secret signs beside the old one, a changed
// address and event types take effect, and the delivery routes answer with the dispatcher's records. Loopback
// receiver: insecure targets on for this test.
describe('webhook endpoints with the dispatcher', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];

  const hmac = (secret: string, timestamp: string, body: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  /** The `v1=` values of an intent-scheme signature header, with its timestamp. */
  const signatureOf = (headers: IncomingHttpHeaders) => {
    const parts = String(headers['x-service-signature']).split(',');
    const timestamp = parts.find((p) => p.startsWith('t='))!.slice(2);
    return { timestamp, v1: parts.filter((p) => p.startsWith('v1=')).map((p) => p.slice(3)) };
  };
  const call = (method: string, path: string, body?: unknown) => stack.call(method, path, { key: merchant.test_key, body });

  /** Sends test events until one arrives that `accept` takes (the dispatcher follows the gateway's events a moment later). */
  async function testEventUntil(endpointId: string, accept: (delivery: { path: string; headers: IncomingHttpHeaders; body: string }) => boolean) {
    let found: { path: string; headers: IncomingHttpHeaders; body: string } | undefined;
    await waitFor(
      async () => {
        const seen = received.length;
        const res = await call('POST', `/api/v1/webhook-endpoints/${endpointId}/test`);
        if (res.status !== 200) return false;
        await waitFor(() => received.length > seen, 15_000, 'the test event at the receiver');
        found = received.slice(seen).find(accept);
        return found !== undefined;
      },
      45_000,
      'a matching test event',
      500,
    );
    return found!;
  }

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    stack = await startStack(['sessions', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1' });
    merchant = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('signs with the created secret, then with both secrets after a roll, and shows the deliveries', async () => {
    const created = await call('POST', '/api/v1/webhook-endpoints', { url: receiverUrl });
    expect(created.status).toBe(201);
    const endpoint = created.body;

    const first = await testEventUntil(endpoint.id, () => true);
    const signed = signatureOf(first.headers);
    expect(signed.v1).toEqual([hmac(endpoint.secret, signed.timestamp, first.body)]);
    expect(JSON.parse(first.body)).toMatchObject({ type: 'webhook_endpoint.test' });

    const rolled = await call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/roll-secret`);
    expect(rolled.status).toBe(200);
    const both = await testEventUntil(endpoint.id, (d) => signatureOf(d.headers).v1.length === 2);
    const twice = signatureOf(both.headers);
    expect(twice.v1.sort()).toEqual(
      [hmac(rolled.body.secret, twice.timestamp, both.body), hmac(endpoint.secret, twice.timestamp, both.body)].sort(),
    );

    const deliveries = await call('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=100`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toMatchObject({ object: 'list', has_more: false });
    expect(deliveries.body.data.length).toBeGreaterThanOrEqual(2);
    expect(deliveries.body.data[0]).toMatchObject({ object: 'webhook_delivery', endpoint_id: endpoint.id, event_type: 'webhook_endpoint.test' });

    expect((await call('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    expect((await call('POST', `/api/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(404);
  });

  it('moves an endpoint to a new address and adds an event type: what follows goes there, signed with the same secret', async () => {
    const created = await call('POST', '/api/v1/webhook-endpoints', { url: receiverUrl, events: ['payment_intent.cancelled'] });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    await testEventUntil(id, (d) => d.path === '/hooks');

    const movedUrl = receiverUrl.replace(/\/hooks$/, '/moved');
    const moved = await stack.call('PATCH', `/api/v1/webhook-endpoints/${id}`, {
      key: merchant.test_key,
      body: { url: movedUrl, events: ['payment_intent.cancelled', 'payment_intent.created'] },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id, url: movedUrl, events: ['payment_intent.cancelled', 'payment_intent.created'], status: 'enabled' });
    expect(moved.body.secret).toBeUndefined();

    // Created after the change: delivered to the new address, also if the dispatcher learns of the change after
    // the event (an added type catches up from the change).
    const intent = await stack.call('POST', '/api/v1/payment-intents', {
      key: merchant.test_key,
      body: { amount: '10.00', currency: 'USD' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(intent.status).toBe(201);
    const isCreated = (d: { body: string }) => (JSON.parse(d.body) as { type: string }).type === 'payment_intent.created';
    await waitFor(() => received.some((d) => d.path === '/moved' && isCreated(d) && d.body.includes(intent.body.id)), 30_000, 'the created event at the new address');
    const delivery = received.find((d) => d.path === '/moved' && d.body.includes(intent.body.id))!;
    const signed = signatureOf(delivery.headers);
    expect(signed.v1).toEqual([hmac(secret, signed.timestamp, delivery.body)]);
    expect(received.filter((d) => d.path === '/hooks' && d.body.includes(intent.body.id))).toEqual([]);
  });
});
