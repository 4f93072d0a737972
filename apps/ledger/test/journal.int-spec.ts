import { createTestDatabase, recordStatements, type TestDatabase } from '@payments/testing';
import fc from 'fast-check';
import type { DataSource, EntityManager } from 'typeorm';
import { checkLedger, reportLines } from '../src/check/ledger-check';
import { bookAdjustment, bookPayment, bookRefund, type Posting } from '../src/domain';
import { JournalRepository } from '../src/journal/journal.repository';
import { LEDGER_MIGRATIONS } from '../src/migrations/ledger-schema';

// The journal on a real Postgres: postings once, balances kept with them, and the database itself refusing any
// change to history or an unbalanced posting.
describe('ledger journal', () => {
  let database: TestDatabase;
  let db: DataSource;
  let journal: JournalRepository;
  let merchants = 0;
  const newMerchant = () => `acct_j${(merchants += 1)}`;
  const at = '2026-11-24T10:00:00.000Z';

  const payment = (merchantId: string, id: string, amount: string, fee: string, net: string, environment: 'live' | 'test' = 'test') =>
    bookPayment({ eventId: `evt_${id}`, merchantId, environment, source: `pi_${environment}_${id}`, occurredAt: at, payment: { id, method: 'crypto', amount, fee, net, currency: 'USD', fee_rate_bps: 150 } });
  const post = (posting: Posting, shard = 0) => db.transaction((manager) => journal.post(manager, posting, shard));
  // This database holds the journal alone: its own invariants, without the owners' payments and refunds.
  const schemas = { ledger: 'ledger', sessions: 'sessions', refunds: 'refunds' };
  const check = (merchantId: string | null) => checkLedger(db, schemas, merchantId, { journalOnly: true });

  beforeAll(async () => {
    database = await createTestDatabase('ledger');
    db = await database.dataSource('ledger', LEDGER_MIGRATIONS);
    journal = new JournalRepository(db, 'ledger', 'payments.ledger.events.v1');
  });

  afterAll(() => database?.drop());

  it('posts a payment once however many times it is delivered, and keeps the balance with it', async () => {
    const merchant = newMerchant();
    const posting = payment(merchant, '1001', '74.00', '1.11', '72.89');
    const results = [];
    for (let i = 0; i < 5; i += 1) results.push(await post(posting, i));
    expect(results).toEqual([true, false, false, false, false]);
    // One ledger.posting.created for internal teams, from the same transaction.
    const outbox = (await db.query(`SELECT payload::jsonb AS payload FROM ledger.outbox WHERE payload::jsonb->>'aggregate_id' = $1`, [posting.id])) as Array<{ payload: any }>;
    expect(outbox.map((row) => row.payload)).toEqual([
      expect.objectContaining({ type: 'ledger.posting.created', data: expect.objectContaining({ id: posting.id, kind: 'payment', amount: '74.00', fee: '1.11', net: '72.89' }) }),
    ]);
    expect(await journal.availableCents(merchant, 'test')).toBe(7289n);
    expect(await db.query('SELECT count(*)::int AS n FROM ledger.entries WHERE posting_id = $1', [posting.id])).toEqual([{ n: 3 }]);
    expect((await check(merchant)).ok).toBe(true);
  });

  it("writes a transaction's postings in one statement, skipping repeats within it and ones already booked", async () => {
    const merchant = newMerchant();
    const booked = payment(merchant, '2001', '10.00', '0.15', '9.85');
    await post(booked);
    const fresh = [payment(merchant, '2002', '20.00', '0.30', '19.70'), payment(merchant, '2003', '30.00', '0.45', '29.55')];
    const recorder = recordStatements();
    let written: Posting[];
    try {
      written = await db.transaction((manager) => journal.postAll(manager, [booked, fresh[0]!, fresh[1]!, fresh[0]!], 3));
    } finally {
      recorder.stop();
    }
    expect(written.map((p) => p.id)).toEqual(fresh.map((p) => p.id));
    // The postings, their entries and balances, and the events of those written (with the relay's NOTIFY, as no
    // relay runs in this process): one round trip.
    const statements = recorder.texts().filter((text) => !/^(START TRANSACTION|BEGIN|COMMIT)/.test(text));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('pg_notify');
    const events = (await db.query(`SELECT payload::jsonb->>'aggregate_id' AS id FROM ledger.outbox WHERE payload::jsonb->>'aggregate_id' = ANY($1) ORDER BY id`, [
      [booked.id, ...fresh.map((p) => p.id)],
    ])) as Array<{ id: string }>;
    expect(events.map((e) => e.id).sort()).toEqual([booked.id, ...fresh.map((p) => p.id)].sort());
    expect(await journal.availableCents(merchant, 'test')).toBe(985n + 1970n + 2955n);
    expect((await check(merchant)).findings).toEqual([]);
  });

  it("plans a consumer run's statement once a connection, not at every run", async () => {
    const merchant = newMerchant();
    // The transaction's own connection: what its prepared posting statements have run so far.
    const prepared = async (manager: EntityManager) =>
      (await manager.query(
        `SELECT count(*)::int AS statements, coalesce(sum(generic_plans + custom_plans), 0)::int AS runs FROM pg_prepared_statements WHERE statement LIKE 'WITH posting AS%'`,
      )) as [{ statements: number; runs: number }];
    const [before, after] = await db.transaction(async (manager) => {
      const [first] = await prepared(manager);
      for (let i = 0; i < 7; i += 1) await journal.postAll(manager, [payment(merchant, `${3001 + i}`, '10.00', '0.15', '9.85')], 3);
      const [last] = await prepared(manager);
      return [first, last];
    });
    // Seven runs of one size, one prepared statement (Postgres plans it custom five times, then reuses a plan).
    expect(after.runs - before.runs).toBe(7);
    expect(after.statements - before.statements).toBeLessThanOrEqual(1);
    expect(await journal.availableCents(merchant, 'test')).toBe(7n * 985n);
  });

  it("books one shop's payments from two partitions at once: neither waits for the other's commit", async () => {
    const merchant = newMerchant();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let posted!: () => void;
    const firstPosted = new Promise<void>((resolve) => (posted = resolve));
    // The first partition's transaction has written and holds its rows open until the second has written.
    const first = db.transaction(async (manager) => {
      expect(await journal.postAll(manager, [payment(merchant, '4001', '10.00', '0.15', '9.85')], 0)).toHaveLength(1);
      posted();
      await released;
    });
    try {
      await Promise.race([firstPosted, first]);
      // A row the first holds would make this wait; with lock_timeout it fails instead of hanging.
      const second = await db.transaction(async (manager) => {
        await manager.query(`SET LOCAL lock_timeout = '2s'`);
        return journal.postAll(manager, [payment(merchant, '4002', '20.00', '0.30', '19.70')], 1);
      });
      expect(second).toHaveLength(1);
    } finally {
      release();
      await first;
    }
    expect(await journal.availableCents(merchant, 'test')).toBe(985n + 1970n);
    expect((await check(merchant)).findings).toEqual([]);
  });

  it('keeps live and test apart: test payments leave the live balance at zero', async () => {
    const merchant = newMerchant();
    await post(payment(merchant, '1002', '10.00', '0.15', '9.85', 'test'));
    expect(await journal.availableCents(merchant, 'test')).toBe(985n);
    expect(await journal.availableCents(merchant, 'live')).toBe(0n);
  });

  it('a new merchant has a zero balance', async () => {
    expect(await journal.availableCents(newMerchant(), 'live')).toBe(0n);
  });

  it.each([
    ['UPDATE ledger.entries SET amount_cents = amount_cents + 1'],
    ['DELETE FROM ledger.entries'],
    ['TRUNCATE ledger.entries CASCADE'],
    ["UPDATE ledger.postings SET description = 'edited'"],
    ['DELETE FROM ledger.postings'],
  ])('refuses to change history: %s', async (sql) => {
    await post(payment(newMerchant(), `h${Math.random().toString().slice(2, 10)}`, '5.00', '0.08', '4.92'));
    await expect(db.query(sql)).rejects.toThrow(/append-only/);
  });

  /** A test posting written by hand in one statement, bypassing the repository, with the given entries: what the database must refuse. */
  const writeByHand = (id: string, entries: Array<[account: string, cents: number]>, entriesOf = id) =>
    db.query(
      `WITH posting AS (
         INSERT INTO ledger.postings (id, kind, merchant_id, environment, source, amount_cents, fee_cents, net_cents, occurred_at)
         VALUES ($1, 'adjustment', 'acct_x', 'test', $1, 100, 0, 100, now()) RETURNING id)
       INSERT INTO ledger.entries (posting_id, account, environment, amount_cents)
       SELECT $2, e.account, 'test', e.cents FROM unnest($3::text[], $4::bigint[]) AS e(account, cents)`,
      [id, entriesOf, entries.map(([account]) => account), entries.map(([, cents]) => cents)],
    );
  const postingCount = async (id: string) => ((await db.query(`SELECT count(*)::int AS n FROM ledger.postings WHERE id = $1`, [id])) as [{ n: number }])[0].n;

  it('refuses a posting whose entries do not sum to zero', async () => {
    await expect(writeByHand('txn_unbalanced', [['acct_x:test:available', -100], ['platform:test:adjustments', 99]])).rejects.toThrow(/not balanced/);
    expect(await postingCount('txn_unbalanced')).toBe(0);
  });

  it('refuses a posting with a single entry, and one with none', async () => {
    await expect(writeByHand('txn_single', [['acct_x:test:available', 100]])).rejects.toThrow(/not balanced/);
    await expect(
      db.query(
        `INSERT INTO ledger.postings (id, kind, merchant_id, environment, source, amount_cents, fee_cents, net_cents, occurred_at)
         VALUES ('txn_empty', 'adjustment', 'acct_x', 'test', 'k', 100, 0, 100, now())`,
      ),
    ).rejects.toThrow(/not balanced \(no entries/);
    expect(await postingCount('txn_single')).toBe(0);
    expect(await postingCount('txn_empty')).toBe(0);
  });

  it('refuses entries of a posting that does not exist, and entries added later that unbalance a posting', async () => {
    await expect(writeByHand('txn_orphan_host', [['acct_x:test:available', 100], ['platform:test:adjustments', -100]], 'txn_nowhere')).rejects.toThrow(
      /no such posting/,
    );
    const merchant = newMerchant();
    await post(payment(merchant, '1004', '5.00', '0.08', '4.92'));
    const [{ id }] = (await db.query(`SELECT id FROM ledger.postings WHERE merchant_id = $1`, [merchant])) as [{ id: string }];
    await expect(
      db.query(`INSERT INTO ledger.entries (posting_id, account, environment, amount_cents) VALUES ($1, $2, 'test', 5)`, [id, `${merchant}:test:fees`]),
    ).rejects.toThrow(/not balanced/);
    expect(await db.query(`SELECT count(*)::int AS n FROM ledger.entries WHERE posting_id = $1`, [id])).toEqual([{ n: 3 }]);
  });

  it('refuses an entry on an account of the other environment, and entries of another environment than their posting', async () => {
    await expect(writeByHand('txn_mixed', [['acct_x:live:available', -100], ['platform:test:adjustments', 100]])).rejects.toThrow(/entries_account_environment/);
    await expect(
      db.query(
        `WITH posting AS (
           INSERT INTO ledger.postings (id, kind, merchant_id, environment, source, amount_cents, fee_cents, net_cents, occurred_at)
           VALUES ('txn_crossed', 'adjustment', 'acct_x', 'test', 'k', 100, 0, 100, now()) RETURNING id)
         INSERT INTO ledger.entries (posting_id, account, environment, amount_cents)
         VALUES ('txn_crossed', 'acct_x:live:available', 'live', 100), ('txn_crossed', 'platform:live:adjustments', 'live', -100)`,
      ),
    ).rejects.toThrow(/2 in another environment/);
    expect(await postingCount('txn_crossed')).toBe(0);
  });

  it('ledger check reports an entry without a posting (written past the triggers, as only the schema owner can)', async () => {
    const merchant = newMerchant();
    const orphan = [`txn_orphan_${merchant}`, `${merchant}:test:available`];
    const withTriggersOff = (sql: string) =>
      db.transaction(async (manager) => {
        await manager.query('ALTER TABLE ledger.entries DISABLE TRIGGER USER');
        await manager.query(sql, orphan);
        await manager.query('ALTER TABLE ledger.entries ENABLE TRIGGER USER');
      });
    await withTriggersOff(`INSERT INTO ledger.entries (posting_id, account, environment, amount_cents) VALUES ($1, $2, 'test', 100)`);
    try {
      const report = await check(merchant);
      expect(report.ok).toBe(false);
      expect(report.findings.map((f) => f.invariant)).toContain('every entry belongs to a posting');
    } finally {
      await withTriggersOff('DELETE FROM ledger.entries WHERE posting_id = $1 AND account = $2');
    }
    expect((await check(merchant)).ok).toBe(true);
  });

  it('ledger check reports a balance that differs from its entries', async () => {
    const merchant = newMerchant();
    await post(payment(merchant, '1003', '20.00', '0.30', '19.70'));
    // Balances are not history: a broken one (here forged) is what the check exists to find.
    await db.query(`UPDATE ledger.balances SET sum_cents = sum_cents - 1 WHERE account = $1`, [`${merchant}:test:available`]);
    const report = await check(merchant);
    expect(report.ok).toBe(false);
    expect(report.findings.map((f) => f.invariant)).toEqual(
      expect.arrayContaining(['each stored balance equals the sum of its account entries', "each merchant's available equals its payments' net, less refunds, plus adjustments"]),
    );
    await db.query(`UPDATE ledger.balances SET sum_cents = sum_cents + 1 WHERE account = $1`, [`${merchant}:test:available`]);
    expect((await check(merchant)).ok).toBe(true);
  });

  it('ledger check takes a refund of a booked payment, waits for a payment still on its way, and reports one never booked', async () => {
    // A database of its own: the over-refund this test books would break the whole-journal checks of the others.
    const own = await createTestDatabase('ledger');
    try {
      const ownDb = await own.dataSource('ledger', LEDGER_MIGRATIONS);
      const ownJournal = new JournalRepository(ownDb, 'ledger', 'payments.ledger.events.v1');
      const book = (posting: Posting) => ownDb.transaction((manager) => ownJournal.post(manager, posting, 0));
      const checkAfter = (graceSeconds?: number) => checkLedger(ownDb, schemas, null, { graceSeconds, journalOnly: true });
      const merchant = newMerchant();
      const refund = (id: string, paymentId: string, cents: number) =>
        bookRefund({ eventId: `evt_${id}`, refundId: `re_${id}`, paymentId, merchantId: merchant, environment: 'test', amountCents: cents, occurredAt: at });

      await book(payment(merchant, '5001', '40.00', '0.60', '39.40'));
      await book(refund('j5001a', '5001', 1550));
      await book(refund('j5001b', '5001', 2450));
      expect(await ownJournal.availableCents(merchant, 'test')).toBe(3940n - 4000n);
      expect(await checkAfter(0)).toMatchObject({ ok: true, findings: [], pendingRefunds: 0 });

      // Booked before its payment (the events come on different topics): on its way, then missing once the grace is over.
      await book(refund('j5002', '5002', 500));
      expect(await checkAfter()).toMatchObject({ ok: true, pendingRefunds: 1 });
      expect((await checkAfter(0)).findings).toEqual([
        { invariant: 'every refund refunds a booked payment', count: 1, examples: [expect.objectContaining({ refund_id: 're_j5002', payment_id: '5002', amount_cents: '500' })] },
      ]);
      // Its payment arrives: the refund is legitimate.
      await book(payment(merchant, '5002', '5.00', '0.08', '4.92'));
      expect(await checkAfter(0)).toMatchObject({ ok: true, pendingRefunds: 0 });

      // More refunded than was paid is wrong whenever it happens.
      await book(refund('j5002b', '5002', 1));
      expect((await checkAfter()).findings).toEqual([
        { invariant: "a payment's refunds never exceed its amount", count: 1, examples: [expect.objectContaining({ payment_id: '5002', payment_cents: '500', refunded_cents: '501' })] },
      ]);
    } finally {
      await own.drop();
    }
  });

  it("ledger check is not ok when an owner's table cannot be read: it names the owner and says the check is incomplete", async () => {
    const merchant = newMerchant();
    await post(payment(merchant, '6001', '10.00', '0.15', '9.85'));
    // No sessions or refunds schema in this database: nothing to compare the journal with.
    const report = await checkLedger(db, schemas, merchant);
    expect(report).toMatchObject({ ok: false, compared: { sessionsPayments: null, completedRefunds: null }, pendingPayments: 0, pendingCompletedRefunds: 0 });
    expect(report.unreadable).toEqual([
      { owner: 'sessions', table: 'sessions.payments', reason: 'no table sessions.payments in this database' },
      { owner: 'refunds', table: 'refunds.refunds', reason: 'no table refunds.refunds in this database' },
    ]);
    expect(report.findings).toEqual([
      { invariant: "sessions' payments can be read (without them the check is incomplete)", count: 1, examples: [report.unreadable[0]] },
      { invariant: "the refunds service's refunds can be read (without them the check is incomplete)", count: 1, examples: [report.unreadable[1]] },
    ]);
    const text = reportLines(report);
    expect(text[0]).toBe(`ledger check (merchant ${merchant}): 1 posting, 2 invariant(s) broken, check incomplete.`);
    expect(text).toContain('INCOMPLETE: the refunds service\'s data could not be read (no table refunds.refunds in this database): the journal was not compared with it.');

    // A table there but not of the shape read (here: no status column) is as unreadable, with the database's reason.
    await db.query('CREATE SCHEMA refunds_other');
    await db.query('CREATE TABLE refunds_other.refunds (id text PRIMARY KEY)');
    const shapeless = await checkLedger(db, { ...schemas, refunds: 'refunds_other' }, merchant);
    expect(shapeless.ok).toBe(false);
    expect(shapeless.unreadable).toContainEqual({ owner: 'refunds', table: 'refunds_other.refunds', reason: expect.stringMatching(/^reading refunds_other\.refunds failed: column .* does not exist$/) });

    // Sessions' payments there but not its attempts: the wallet payments cannot be compared with their debits.
    await db.query('CREATE SCHEMA sessions_payments_only');
    await db.query(
      'CREATE TABLE sessions_payments_only.payments (id bigint PRIMARY KEY, merchant_id text, environment text, amount_cents bigint, net_cents bigint, paid_at timestamptz)',
    );
    const noAttempts = await checkLedger(db, { ...schemas, sessions: 'sessions_payments_only' }, merchant);
    expect(noAttempts.ok).toBe(false);
    expect(noAttempts.unreadable).toContainEqual({
      owner: 'sessions',
      table: 'sessions_payments_only.provider_attempts',
      reason: 'no table sessions_payments_only.provider_attempts in this database',
    });

    // Asked for the journal alone, the same journal is clean, and the report says the owners were left out.
    const journalOnly = await checkLedger(db, schemas, merchant, { journalOnly: true });
    expect(journalOnly).toMatchObject({ ok: true, findings: [], compared: null, unreadable: [] });
    expect(reportLines(journalOnly)).toContain('Journal only: payments and refunds not compared with sessions and the refunds service.');
  });

  // Property: whatever mix of payments, refunds, adjustments and re-deliveries arrives, on whichever shards, each
  // books once, the check finds nothing, and every balance equals the model's sum to the cent.
  it('any sequence of payments, refunds, adjustments and re-deliveries leaves a clean journal and exact balances', async () => {
    const amount = fc.integer({ min: 50, max: 99_999_999 });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('payment' as const), amount, rate: fc.constantFrom(0, 50, 150, 275), live: fc.boolean() }),
      fc.record({ kind: fc.constant('refund' as const), amount: fc.integer({ min: 1, max: 1_000_000 }), live: fc.boolean() }),
      fc.record({ kind: fc.constant('adjustment' as const), amount: fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((n) => n !== 0), live: fc.boolean() }),
      fc.record({ kind: fc.constant('redeliver' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 }), async (ops, shards) => {
        const merchant = newMerchant();
        const model = { live: 0n, test: 0n };
        const posted: Posting[] = [];
        for (const [i, o] of ops.entries()) {
          const shard = shards[i % shards.length]!;
          if (o.kind === 'redeliver') {
            if (posted.length > 0) expect(await post(posted[o.pick % posted.length]!, shard)).toBe(false);
            continue;
          }
          const environment = o.live ? 'live' : 'test';
          let posting: Posting;
          if (o.kind === 'payment') {
            const fee = (BigInt(o.amount) * BigInt(o.rate) + 5_000n) / 10_000n;
            const cents = (n: bigint) => `${n / 100n}.${String(n % 100n).padStart(2, '0')}`;
            posting = bookPayment({
              eventId: `evt_${merchant}_${i}`,
              merchantId: merchant,
              environment,
              source: `pi_${environment}_${i}`,
              occurredAt: at,
              payment: { id: `${merchants}${String(i).padStart(4, '0')}`, method: 'crypto', amount: cents(BigInt(o.amount)), fee: cents(fee), net: cents(BigInt(o.amount) - fee), currency: 'USD', fee_rate_bps: o.rate },
            });
          } else if (o.kind === 'refund') {
            posting = bookRefund({ eventId: `evt_r${i}`, refundId: `re_${merchant}_${i}`, paymentId: `p${i}`, merchantId: merchant, environment, amountCents: o.amount, occurredAt: at });
          } else {
            posting = bookAdjustment({ key: `k${i}`, merchantId: merchant, environment, amountCents: o.amount, reason: 'property', occurredAt: at });
          }
          expect(await post(posting, shard)).toBe(true);
          posted.push(posting);
          model[environment] += BigInt(posting.netCents);
        }
        expect(await journal.availableCents(merchant, 'live')).toBe(model.live);
        expect(await journal.availableCents(merchant, 'test')).toBe(model.test);
        const report = await check(merchant);
        expect(report.findings).toEqual([]);
      }),
      { numRuns: 30 },
    );
    // And across every merchant and the sharded platform accounts at once.
    expect((await check(null)).findings).toEqual([]);
  });
});
