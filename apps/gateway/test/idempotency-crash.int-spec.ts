import { Redis } from 'ioredis';
import { Client } from 'pg';
import { Stack, startService, startStack, TestMerchant } from '@payments/testing';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CREATES = 64;

// A gateway killed (SIGKILL) with creates in flight must not hold its merchants' Idempotency-Keys: each claim is a
// short lease its request renews, so the keys are free within 2 s, and the merchant's retries get the intents the
// first attempts made (sessions' own key check keeps one intent per key).
describe('idempotency across a gateway crash', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  const redis = new Redis(REDIS_URL);

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway']);
    merchant = await stack.createMerchant({ testLimit: 10000 });
  });

  afterAll(async () => {
    await stack?.stop();
    redis.disconnect();
  });

  const create = (key: string, index: number) =>
    fetch(`${stack.services.gateway!.url}/api/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.test_key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: `${10 + index}.00`, currency: 'USD', external_ref: `crash-${index}` }),
    });

  it('frees the keys of 64 creates in flight within 2 s of the kill; every retry answers the one intent of its key', async () => {
    const keys = Array.from({ length: CREATES }, (_, i) => `crash-${stack.namespace}-${i}`);
    const claimKeys = keys.map((key) => `${stack.namespace}:idempotency:${merchant.merchant_id}:test:${key}`);
    // Hold sessions' creates at its idempotency table, so all 64 are in flight when the gateway dies.
    const blocker = new Client({ connectionString: stack.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE sessions.idempotency_keys IN EXCLUSIVE MODE');
    const first = keys.map((key, i) => create(key, i).then((res) => res.status, () => 'no answer' as const));
    const held = async () => (await Promise.all(claimKeys.map((k) => redis.exists(k)))).filter(Boolean).length;
    for (let tries = 0; (await held()) < CREATES; tries++) {
      if (tries > 200) throw new Error(`only ${await held()} claims held`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    await stack.services.gateway!.kill();
    const killedAt = Date.now();
    // Sessions goes on with the commands it received; the lock lifts and they commit.
    await blocker.query('COMMIT');
    await blocker.end();
    expect(await Promise.all(first)).toEqual(Array(CREATES).fill('no answer'));

    // Every claim lapses with its dead owner: within the 2 s lease (a small margin for the poll).
    while ((await held()) > 0) {
      expect(Date.now() - killedAt).toBeLessThan(2500);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const gateway = await startService('gateway', stack.services.gateway!.env);
    stack.services.gateway = gateway;
    const ready = Date.now();
    const retries = await Promise.all(keys.map((key, i) => create(key, i).then(async (res) => ({ status: res.status, body: (await res.json()) as { id: string; external_ref: string } }))));
    const retriedIn = Date.now() - ready;
    expect(retries.map((r) => r.status)).toEqual(Array(CREATES).fill(201));
    expect(retries.map((r) => r.body.external_ref)).toEqual(keys.map((_, i) => `crash-${i}`));
    // One intent per key: the retries answered the intents sessions made for the first attempts.
    const ids = new Set(retries.map((r) => r.body.id));
    expect(ids.size).toBe(CREATES);
    const db = new Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      const stored = await db.query<{ id: string }>('SELECT id FROM sessions.payment_intents WHERE merchant_id = $1', [merchant.merchant_id]);
      expect(new Set(stored.rows.map((r) => r.id))).toEqual(ids);
    } finally {
      await db.end();
    }
    // Not a speed figure: a retry that found its key still held would wait up to IDEMPOTENCY_WAIT_MS (10 s).
    expect(retriedIn).toBeLessThan(5000);
  });
});
