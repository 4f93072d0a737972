import type { InvoiceResource, PaymentIntentResource } from '@payments/contracts';
import { recordStatements } from '@payments/testing';
import { ExpiryScheduler, EXPIRY_BATCH_SIZE } from '../src/expiry/expiry.scheduler';
import type { Expirer } from '../src/sessions.composition';
import { createHarness, intentCommand, invoiceCommand, SCHEMA, type SessionsHarness, testMerchant } from './support/sessions-harness';
import { StoppedClock } from './support/test-clock';

// The expiry job against a real Postgres: due sessions expire once through their aggregate, whoever runs it.
describe('expiry job', () => {
  let h: SessionsHarness;
  const { merchant, scope } = testMerchant();
  /** Creating "301 s ago" with expires_in 300 gives a session that was due a second ago. */
  const DUE = -301_000;

  beforeAll(async () => {
    h = await createHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  const dueIntent = () => h.clock.shifted(DUE, () => h.intents.create(intentCommand(merchant, {}, { expires_in: 300 }), 'req_due'));
  const dueInvoice = () => h.clock.shifted(DUE, () => h.invoices.create(invoiceCommand(merchant, {}, { expires_in: 300 }), 'req_due'));

  async function expiredEvents(id: string): Promise<number> {
    return h.count('events', `stream_id = $1 AND type IN ('PaymentIntentExpired', 'InvoiceExpired')`, [id]);
  }

  it('expires due intents and invoices in every live state, and leaves the rest alone', async () => {
    const fresh = await dueIntent();
    const failed = await dueIntent();
    await h.clock.shifted(DUE, () => h.intents.simulate({ ...scope, id: failed.id, result: 'failed' }, 'r'));
    const paid = await dueIntent();
    await h.clock.shifted(DUE, () => h.intents.simulate({ ...scope, id: paid.id, result: 'succeeded' }, 'r'));
    const pending = await dueInvoice();
    const notDue = await h.intents.create(intentCommand(merchant, {}, { expires_in: 300 }), 'r');

    const run = await h.expiry.runOnce();
    expect(run).toEqual({ expired: 3, failed: 0 });

    for (const intent of [fresh, failed]) {
      const read = await h.intents.get({ ...scope, id: intent.id });
      expect(read.status).toBe('expired');
      expect(await expiredEvents(intent.id)).toBe(1);
      const outbox = await h.outboxOf(intent.id);
      const last = outbox[outbox.length - 1]!;
      expect(last).toMatchObject({ type: 'payment_intent.expired', sequence: outbox.length, data: { object: { ...read, status: 'expired' } } });
      expect(last.correlation_id).toMatch(/^expiry_/);
    }
    const invoice = await h.invoices.get({ ...scope, id: pending.id });
    expect(invoice.status).toBe('expired');
    expect((await h.outboxOf(pending.id)).map((e) => [e.type, e.sequence])).toEqual([
      ['invoice.created', 1],
      ['invoice.expired', 2],
    ]);
    expect((await h.intents.get({ ...scope, id: paid.id })).status).toBe('succeeded');
    expect((await h.intents.get({ ...scope, id: notDue.id })).status).toBe('requires_payment_method');
    expect(await expiredEvents(paid.id)).toBe(0);
    expect(await expiredEvents(notDue.id)).toBe(0);

    expect(await h.expiry.runOnce()).toEqual({ expired: 0, failed: 0 });
  });

  it('checks with one statement whether anything is due, and opens a transaction only for a kind that has a due row', async () => {
    const statements = recordStatements();
    try {
      // Nothing due: one round trip, no transaction (each kind's locking transaction was three a pass before).
      expect(await h.expiry.runOnce()).toEqual({ expired: 0, failed: 0 });
      expect(statements.texts()).toHaveLength(1);
      expect(statements.texts()[0]).toMatch(/^SELECT EXISTS \(/);

      // An invoice due: its kind's transaction only.
      const invoice = await dueInvoice();
      statements.clear();
      expect(await h.expiry.runOnce()).toEqual({ expired: 1, failed: 0 });
      expect(statements.texts().filter((text) => /FOR UPDATE SKIP LOCKED/.test(text)).map((text) => /FROM (\S+)/.exec(text)?.[1])).toEqual([`"${SCHEMA}"."invoices"`]);
      expect((await h.invoices.get({ ...scope, id: invoice.id })).status).toBe('expired');
    } finally {
      statements.stop();
    }
  });

  it('expires each session once when two instances run at the same time', async () => {
    const other = await h.instance();
    const intents: PaymentIntentResource[] = [];
    const invoices: InvoiceResource[] = [];
    for (let i = 0; i < 30; i += 1) intents.push(await dueIntent());
    for (let i = 0; i < 10; i += 1) invoices.push(await dueInvoice());

    const runs = await Promise.all([h.expiry.runOnce(), other.expiry.runOnce(), h.expiry.runOnce(), other.expiry.runOnce()]);
    expect(runs.reduce((sum, run) => sum + run.expired, 0)).toBe(40);
    expect(runs.every((run) => run.failed === 0)).toBe(true);
    for (const { id } of [...intents, ...invoices]) {
      expect(await expiredEvents(id)).toBe(1);
      expect((await h.outboxOf(id)).filter((e) => e.type.endsWith('.expired'))).toHaveLength(1);
    }
  });

  it('lets a command and the job race on one intent without a second final state', async () => {
    for (let round = 0; round < 5; round += 1) {
      const intent = await dueIntent();
      // The command runs "before" expires_at (its own clock), the job after: one of them wins.
      const outcomes = await Promise.allSettled([
        h.clock.shifted(-2_000, () => h.intents.cancel({ ...scope, id: intent.id }, 'req_cancel')),
        h.expiry.runOnce(),
      ]);
      const read = await h.intents.get({ ...scope, id: intent.id });
      const types = (await h.eventsOf(intent.id)).map((e) => e.type);
      expect(types.filter((t) => t === 'PaymentIntentCancelled' || t === 'PaymentIntentExpired')).toHaveLength(1);
      expect(read.status).toBe(types[types.length - 1] === 'PaymentIntentCancelled' ? 'cancelled' : 'expired');
      if (outcomes[0].status === 'rejected') expect((outcomes[0].reason as { code: string }).code).toBe('invalid_state');
    }
  });

  it('sets rows whose expiry keeps failing aside with a backoff, so the rest behind them still expire (no endless loop)', async () => {
    // More failing rows than a batch, all due before the good ones: before, every batch locked the same failing
    // rows first, and a run never ended.
    const failing = new Set<string>();
    for (let i = 0; i < EXPIRY_BATCH_SIZE + 5; i += 1) failing.add((await dueIntent()).id);
    const good: string[] = [];
    for (let i = 0; i < 3; i += 1) good.push((await h.clock.shifted(-300_500, () => h.intents.create(intentCommand(merchant, {}, { expires_in: 300 }), 'r'))).id);
    const breaking: Expirer = {
      ...h.expirers.payment_intent,
      expireLocked: (...args: Parameters<Expirer['expireLocked']>) => {
        if (failing.has(args[1].id)) return Promise.reject(new Error('this intent cannot be expired'));
        return h.expirers.payment_intent.expireLocked(...args);
      },
      // What the job logs as the row's failure count.
      setAsideExpiry: async (...args: Parameters<Expirer['setAsideExpiry']>) => {
        const failures = await h.expirers.payment_intent.setAsideExpiry(...args);
        counted.push(failures);
        return failures;
      },
    };
    const counted: number[] = [];
    // The job's clock stands still while it runs: the waits are read against the time the job acted at, not the
    // wall clock, which a slow machine moves past a 1 s backoff within one run of 200 failing rows.
    const clock = new StoppedClock(new Date());
    const job = new ExpiryScheduler(h.sessions, { ...h.expirers, payment_intent: breaking }, h.config, clock);

    expect(await job.runOnce()).toEqual({ expired: 3, failed: failing.size });
    for (const id of good) expect((await h.intents.get({ ...scope, id })).status).toBe('expired');
    const setAside = async () =>
      (await h.dataSource.query(
        `SELECT expiry_failures, extract(epoch FROM expiry_retry_at - $2::timestamptz)::float8 AS wait_s FROM "${SCHEMA}".payment_intents WHERE id = ANY($1)`,
        [[...failing], clock.now()],
      )) as Array<{ expiry_failures: number; wait_s: number }>;
    expect((await setAside()).every((r) => r.expiry_failures === 1 && r.wait_s === 1)).toBe(true);
    expect(counted).toEqual([...failing].map(() => 1));
    // Out of line until their retry time: the next run does not touch them.
    clock.advance(999);
    expect(await job.runOnce()).toEqual({ expired: 0, failed: 0 });
    // Due again, they fail again and wait twice as long; the job still ends.
    clock.advance(1);
    expect(await job.runOnce()).toEqual({ expired: 0, failed: failing.size });
    expect((await setAside()).every((r) => r.expiry_failures === 2 && r.wait_s === 2)).toBe(true);
    expect(counted.slice(failing.size)).toEqual([...failing].map(() => 2));
    // Once they can be expired, they are.
    failing.clear();
    clock.advance(2_000);
    expect((await job.runOnce()).expired).toBe(EXPIRY_BATCH_SIZE + 5);
  }, 120_000);
});
