import { NEW_ORDER_42_INTENT } from '../src/domain/payment-intent.fixtures';
import { validateEnvelope } from '@payments/events';
import { isPaymentId } from '@payments/ids';
import { uniqueName } from '@payments/testing';
import { ConcurrencyError } from '../src/event-store/concurrency.error';
import { BASE_URL, codeOf, intentCommand, suiteHarness, testMerchant } from './support/sessions-harness';

// Payment intent commands against a real Postgres: events, read model, payments and outbox in one transaction.
describe('payment intents', () => {
  const h = suiteHarness();
  const { merchant, scope } = testMerchant();

  it('creates an intent: resource, stream version 1, read model and a payment_intent.created event in the outbox', async () => {
    const created = await h.intents.create(
      intentCommand(merchant, {}, { description: 'Order 42', metadata: { order: '42' }, customer: { name: 'Rana', country: 'PS' } }),
      'req_create_1',
    );
    expect(created).toMatchObject({
      ...NEW_ORDER_42_INTENT,
      checkout_url: `${BASE_URL}/checkout/${created.id}`,
      paid_at: null,
      payment_id: null,
      description: 'Order 42',
      metadata: { order: '42' },
    });
    expect(created.id).toMatch(/^pi_test_[A-Za-z0-9]{24}$/);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(1800 * 1000);

    expect(await h.intents.get({ ...scope, id: created.id })).toEqual(created);

    const events = await h.eventsOf(created.id);
    expect(events.map((e) => [e.version, e.type])).toEqual([[1, 'PaymentIntentCreated']]);
    expect(events[0]!.metadata).toEqual({ merchant_id: merchant, environment: 'test', correlation_id: 'req_create_1', causation_id: null });

    const outbox = await h.outboxOf(created.id);
    expect(outbox).toHaveLength(1);
    expect(validateEnvelope(outbox[0])).toMatchObject({
      type: 'payment_intent.created',
      aggregate_id: created.id,
      aggregate_type: 'payment_intent',
      sequence: 1,
      merchant_id: merchant,
      environment: 'test',
      correlation_id: 'req_create_1',
      causation_id: null,
      data: { object: created },
    });
  });

  it('simulates a success: processing then succeeded, a payment row, and the payment in the succeeded event', async () => {
    const created = await h.intents.create(intentCommand(merchant, { merchant: { enabled_methods: ['togo', 'lahza'], fee_overrides: { lahza: 200 } } }), 'req_2');
    const paid = await h.intents.simulate({ ...scope, id: created.id, result: 'succeeded', method: 'lahza' }, 'req_3');
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza', fee: '1.48', net_amount: '72.52' });
    expect(isPaymentId(paid.payment_id)).toBe(true);
    expect(paid.paid_at).not.toBeNull();
    expect(await h.intents.get({ ...scope, id: created.id })).toEqual(paid);

    expect((await h.eventsOf(created.id)).map((e) => e.type)).toEqual([
      'PaymentIntentCreated',
      'PaymentIntentProcessingStarted',
      'PaymentIntentSucceeded',
    ]);
    const [payment] = await h.dataSource.query(`SELECT * FROM "sessions".payments WHERE source_id = $1`, [created.id]);
    expect(payment).toMatchObject({
      id: paid.payment_id,
      merchant_id: merchant,
      environment: 'test',
      source_type: 'payment_intent',
      method: 'lahza',
      currency: 'USD',
      amount_cents: '7400',
      fee_cents: '148',
      net_cents: '7252',
    });

    const outbox = await h.outboxOf(created.id);
    expect(outbox.map((e) => [e.type, e.sequence])).toEqual([
      ['payment_intent.created', 1],
      ['payment_intent.processing', 2],
      ['payment_intent.succeeded', 3],
    ]);
    expect(outbox[1]!.data).toMatchObject({ object: { status: 'processing', payment_method: 'lahza', paid: false } });
    expect(outbox[1]!.data).not.toHaveProperty('payment');
    expect(outbox[2]!.data).toEqual({
      object: paid,
      payment: { id: paid.payment_id, method: 'lahza', amount: '74.00', fee: '1.48', fee_rate_bps: 200, net: '72.52', currency: 'USD' },
    });
    for (const envelope of outbox) expect(envelope.correlation_id).toBe(envelope.sequence === 1 ? 'req_2' : 'req_3');
  });

  it('lets a failed intent be cancelled, and then refuses every change with invalid_state', async () => {
    const created = await h.intents.create(intentCommand(merchant), 'req_4');
    const failed = await h.intents.simulate({ ...scope, id: created.id, result: 'failed' }, 'req_5');
    expect(failed).toMatchObject({ status: 'failed', payment_method: 'togo', paid: false });
    const cancelled = await h.intents.cancel({ ...scope, id: created.id }, 'req_6');
    expect(cancelled.status).toBe('cancelled');

    expect(await codeOf(h.intents.cancel({ ...scope, id: created.id }, 'req_7'))).toBe('invalid_state');
    expect(await codeOf(h.intents.simulate({ ...scope, id: created.id, result: 'succeeded' }, 'req_8'))).toBe('invalid_state');
    expect((await h.outboxOf(created.id)).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.payment_failed',
      'payment_intent.cancelled',
    ]);
  });

  it('answers not_found for unknown ids and for ids of another merchant or environment', async () => {
    const created = await h.intents.create(intentCommand(merchant), 'req_9');
    const live = await h.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_10');
    expect(live.id).toMatch(/^pi_live_/);
    const attempts = [
      { ...scope, id: 'pi_test_000000000000000000000000' },
      { ...scope, id: 'nonsense' },
      { merchant_id: uniqueName('acct'), environment: 'test', id: created.id },
      { ...scope, environment: 'live', id: created.id },
      { ...scope, id: live.id },
    ];
    for (const body of attempts) {
      expect(await codeOf(h.intents.get(body))).toBe('not_found');
      expect(await codeOf(h.intents.cancel(body, 'req_x'))).toBe('not_found');
    }
    expect((await h.intents.get({ ...scope, environment: 'live', id: live.id })).id).toBe(live.id);
  });

  it('refuses to simulate with a live key', async () => {
    const live = await h.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_11');
    expect(await codeOf(h.intents.simulate({ ...scope, environment: 'live', id: live.id, result: 'succeeded' }, 'r'))).toBe(
      'live_mode_not_allowed',
    );
  });

  it('refuses methods the merchant has not enabled, and bad bodies, without writing anything', async () => {
    const before = await h.count('events');
    expect(await codeOf(h.intents.create(intentCommand(merchant, { merchant: { enabled_methods: ['togo'] } }, { methods: ['crypto'] }), 'r'))).toBe(
      'payment_methods_unavailable',
    );
    expect(await codeOf(h.intents.create(intentCommand(merchant, {}, { amount: '0.00' }), 'r'))).toBe('invalid_request');
    expect(await codeOf(h.intents.create(intentCommand(merchant, {}, { amount: 74 }), 'r'))).toBe('invalid_request');
    expect(await codeOf(h.intents.create(intentCommand(merchant, {}, { expires_in: 60 }), 'r'))).toBe('invalid_request');
    expect(await codeOf(h.intents.create(intentCommand(merchant, {}, { customer: { name: 'A', shoe: 42 } }), 'r'))).toBe('invalid_request');
    expect(await codeOf(h.intents.create(intentCommand(merchant, { environment: 'prod' }), 'r'))).toBe('invalid_request');
    expect(await codeOf(h.intents.create(intentCommand(merchant, { idempotency_key: '' }), 'r'))).toBe('idempotency_key_required');
    expect(await h.count('events')).toBe(before);
  });

  it('answers a repeated create with the existing intent, in its current state', async () => {
    const command = intentCommand(merchant);
    const first = await h.intents.create(command, 'req_a');
    await h.intents.cancel({ ...scope, id: first.id }, 'req_b');
    const again = await h.intents.create(command, 'req_c');
    expect(again).toEqual({ ...first, status: 'cancelled' });
    expect(await h.count('payment_intents', 'merchant_id = $1 AND id = $2', [merchant, first.id])).toBe(1);
    expect((await h.outboxOf(first.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
  });

  it('answers a repeated create with its intent even when the same request would now be refused', async () => {
    const command = intentCommand(merchant, { merchant: { enabled_methods: ['togo', 'crypto'] } }, { methods: ['crypto'] });
    const first = await h.intents.create(command, 'req_a');
    // Meanwhile the merchant turned crypto off: a new request would get payment_methods_unavailable.
    const again = await h.intents.create({ ...command, merchant: { ...command.merchant, enabled_methods: ['togo'] } }, 'req_b');
    expect(again).toEqual(first);
  });

  it('creates one intent for 20 concurrent creates with the same key', async () => {
    const command = intentCommand(merchant);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => h.intents.create(command, `req_c${i}`)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await h.count('idempotency_keys', 'merchant_id = $1 AND key = $2', [merchant, command.idempotency_key])).toBe(1);
    expect(await h.count('payment_intents', 'id = $1', [results[0]!.id])).toBe(1);
    expect(await h.count('events', 'stream_id = $1', [results[0]!.id])).toBe(1);
    expect(await h.outboxOf(results[0]!.id)).toHaveLength(1);
  });

  it('creates arriving together are written together, and each still succeeds or fails on its own', async () => {
    // One turn: distinct keys, one key four times, and one key reused for another amount (written in one group;
    // the group fails on the repeated key and each create is written again alone).
    const distinct = Array.from({ length: 20 }, (_, i) => intentCommand(merchant, {}, { amount: `${10 + i}.00`, external_ref: `order-${i}` }));
    const repeated = intentCommand(merchant);
    const reused = intentCommand(merchant);
    await h.intents.create(reused, 'req_first');
    const outcomes = await Promise.allSettled([
      ...distinct.map((command, i) => h.intents.create(command, `req_d${i}`)),
      ...Array.from({ length: 4 }, (_, i) => h.intents.create(repeated, `req_r${i}`)),
      h.intents.create({ ...reused, params: { ...reused.params, amount: '75.00' } }, 'req_reused'),
    ]);
    const created = outcomes.slice(0, 20).map((o) => (o.status === 'fulfilled' ? o.value : o.reason));
    // Each create answers its own intent.
    expect(created.map((r) => [r.external_ref, r.amount, r.status])).toEqual(distinct.map((c) => [c.params.external_ref, c.params.amount, 'requires_payment_method']));
    expect(new Set(created.map((r) => r.id)).size).toBe(20);
    const again = outcomes.slice(20, 24).map((o) => (o.status === 'fulfilled' ? o.value.id : String(o.reason)));
    expect(new Set(again).size).toBe(1);
    const last = outcomes[24]!;
    expect(last.status).toBe('rejected');
    expect(await codeOf(Promise.reject((last as PromiseRejectedResult).reason))).toBe('idempotency_key_reused');
    for (const id of [...created.map((r) => r.id), again[0]!]) {
      expect(await h.count('payment_intents', 'id = $1', [id])).toBe(1);
      expect(await h.outboxOf(id)).toHaveLength(1);
    }
    for (const command of [...distinct, repeated]) {
      expect(await h.count('idempotency_keys', 'merchant_id = $1 AND key = $2', [merchant, command.idempotency_key])).toBe(1);
    }
  });

  it('scopes keys to merchant and environment, and refuses a key reused for a different request', async () => {
    const command = intentCommand(merchant);
    const first = await h.intents.create(command, 'r1');
    const otherEnvironment = await h.intents.create({ ...command, environment: 'live' }, 'r2');
    const otherMerchant = await h.intents.create({ ...command, merchant_id: uniqueName('acct') }, 'r3');
    expect(new Set([first.id, otherEnvironment.id, otherMerchant.id]).size).toBe(3);
    expect(await codeOf(h.intents.create({ ...command, params: { ...command.params, amount: '75.00' } }, 'r4'))).toBe('idempotency_key_reused');
  });

  it('lets one of two concurrent commands on an intent win; the other retries and gets invalid_state', async () => {
    for (let round = 0; round < 5; round += 1) {
      const created = await h.intents.create(intentCommand(merchant), `req_race_${round}`);
      const body = { ...scope, id: created.id };
      const outcomes = await Promise.allSettled([
        h.intents.simulate({ ...body, result: 'succeeded' }, 'req_sim'),
        h.intents.cancel(body, 'req_cancel'),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((o) => (o.reason as { code: string }).code)).toEqual(['invalid_state']);

      const versions = (await h.eventsOf(created.id)).map((e) => e.version);
      expect(versions).toEqual(versions.map((_, i) => i + 1));
      const final = await h.intents.get(body);
      expect(['succeeded', 'cancelled']).toContain(final.status);
      expect(await h.count('payments', 'source_id = $1', [created.id])).toBe(final.status === 'succeeded' ? 1 : 0);
      expect((await h.outboxOf(created.id)).map((e) => e.sequence)).toEqual(versions);
    }
  });

  it('writes a command with the read-model row locked before any event is appended (the expiry job locks in that order too)', async () => {
    const created = await h.intents.create(intentCommand(merchant), 'req_order');
    // A transaction holding the row, as the expiry job does, makes the command wait on its first write.
    const job = h.dataSource.createQueryRunner();
    await job.connect();
    try {
      await job.startTransaction();
      await job.query(`SELECT 1 FROM ${h.sessions.table('payment_intents')} WHERE id = $1 FOR UPDATE`, [created.id]);
      const simulating = h.intents.simulate({ ...scope, id: created.id, result: 'succeeded' }, 'req_order_sim');
      for (let waited = 0; ; waited += 20) {
        const [row] = await h.dataSource.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE%payment_intents%'`,
        );
        if (row.n === 1) break;
        if (waited > 10_000) throw new Error('the command never waited on the row lock');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Had the command appended version 2 before waiting, this append of version 2 would wait on it: a deadlock,
      // which Postgres breaks only after deadlock_timeout (1 s), so the lock timeout here is shorter.
      await job.query(`SET LOCAL lock_timeout = '200ms'`);
      const metadata = JSON.stringify({ merchant_id: merchant, environment: 'test', correlation_id: 'job', causation_id: null });
      await job.query(
        `INSERT INTO ${h.sessions.table('events')} (stream_id, version, type, data, metadata, occurred_at) VALUES ($1, 2, 'PaymentIntentExpired', '{}', $2::jsonb, now())`,
        [created.id, metadata],
      );
      await job.rollbackTransaction();
      expect((await simulating).status).toBe('succeeded');
    } finally {
      await job.release();
    }
    expect((await h.eventsOf(created.id)).map((e) => e.version)).toEqual([1, 2, 3]);
  });

  it('turns an append at a version already taken into a ConcurrencyError', async () => {
    const created = await h.intents.create(intentCommand(merchant), 'req_v');
    const metadata = { merchant_id: merchant, environment: 'test' as const, correlation_id: 'req_v', causation_id: null };
    const append = () =>
      h.dataSource.transaction((manager) =>
        h.sessions.events.append(manager, created.id, 0, [{ type: 'PaymentIntentCancelled', data: {} }], metadata, new Date()),
      );
    await expect(append()).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await h.count('events', 'stream_id = $1', [created.id])).toBe(1);
  });

  it('keeps the events append-only', async () => {
    const created = await h.intents.create(intentCommand(merchant), 'req_ao');
    await expect(h.dataSource.query(`UPDATE "sessions".events SET type = 'x' WHERE stream_id = $1`, [created.id])).rejects.toThrow(/append-only/);
    await expect(h.dataSource.query(`DELETE FROM "sessions".events WHERE stream_id = $1`, [created.id])).rejects.toThrow(/append-only/);
  });

  it('never shows a live state after expires_at, even before the expiry is recorded', async () => {
    const created = await h.intents.create(intentCommand(merchant, {}, { expires_in: 300 }), 'req_e');
    await h.clock.shifted(301_000, async () => {
      expect((await h.intents.get({ ...scope, id: created.id })).status).toBe('expired');
      expect(await codeOf(h.intents.cancel({ ...scope, id: created.id }, 'req_e2'))).toBe('invalid_state');
    });
    expect((await h.intents.get({ ...scope, id: created.id })).status).toBe('requires_payment_method');
    expect((await h.eventsOf(created.id)).map((e) => e.type)).toEqual(['PaymentIntentCreated']);
  });
});
