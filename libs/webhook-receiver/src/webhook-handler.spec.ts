import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { MemoryEventIdStore } from './event-id-store';
import { computeSignature, type VerifiedWebhook } from './verify-webhook';
import { createWebhookServer } from './webhook-handler';

const SECRET = 'whsec_handler_secret';

function signedIntent(id: string, timestamp = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify({ id, type: 'payment_intent.succeeded', created: timestamp, data: { object: {} } });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'payment_intent.succeeded',
      'x-service-signature': `t=${timestamp},v1=${computeSignature(SECRET, timestamp, body)}`,
    },
  };
}

describe('createWebhookServer (the reference receiver)', () => {
  let server: Server;
  let url: string;
  const received: VerifiedWebhook[] = [];
  let failNext = 0;

  beforeAll(async () => {
    server = createWebhookServer({
      secret: SECRET,
      store: new MemoryEventIdStore(),
      onEvent: (webhook) => {
        if (failNext > 0) {
          failNext -= 1;
          throw new Error('database down');
        }
        received.push(webhook);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });

  it('answers 200 and hands over a verified event once per id', async () => {
    const first = signedIntent('evt_once');
    expect((await post(first.body, first.headers)).status).toBe(200);
    const again = signedIntent('evt_once');
    const repeat = await post(again.body, again.headers);
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual({ received: true, duplicate: true });
    expect(received.filter((w) => w.id === 'evt_once')).toHaveLength(1);
  });

  it('answers 400 when verification fails', async () => {
    const event = signedIntent('evt_bad');
    expect((await post(`${event.body} `, event.headers)).status).toBe(400);
    const stale = signedIntent('evt_stale', Math.floor(Date.now() / 1000) - 301);
    expect((await post(stale.body, stale.headers)).status).toBe(400);
    expect((await post(event.body, { 'content-type': 'application/json' })).status).toBe(400);
    expect(received.some((w) => w.id === 'evt_bad' || w.id === 'evt_stale')).toBe(false);
  });

  it('answers 500 when the handler fails, and handles the event on the next delivery', async () => {
    failNext = 1;
    const event = signedIntent('evt_retry');
    expect((await post(event.body, event.headers)).status).toBe(500);
    expect((await post(event.body, event.headers)).status).toBe(200);
    expect(received.filter((w) => w.id === 'evt_retry')).toHaveLength(1);
  });

  it('answers 405 to anything but POST', async () => {
    expect((await fetch(url)).status).toBe(405);
  });
});

describe('MemoryEventIdStore', () => {
  it('tells claimed, in progress and done apart, and forgets the oldest beyond its size', () => {
    let now = 0;
    const store = new MemoryEventIdStore({ maxEntries: 2, ttlMs: 1000, now: () => now });
    expect(store.claim('a')).toBe('claimed');
    expect(store.claim('a')).toBe('in_progress');
    store.release('a');
    expect(store.claim('a')).toBe('claimed');
    store.complete('a');
    expect(store.claim('a')).toBe('done');
    for (const id of ['b', 'c']) {
      store.claim(id);
      store.complete(id);
    }
    expect(store.handledCount()).toBe(2);
    expect(store.claim('a')).toBe('claimed');
    now = 1000;
    expect(store.claim('b')).toBe('claimed');
  });
});
