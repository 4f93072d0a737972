// A merchant's long history for the operations lists' benchmark: `count` paid payment intents with their
// payments, written straight into the read models the lists read (one INSERT ... SELECT generate_series per
// table, about 2 s for 100,000). What is written, and what is not:
//   - refunds.payments: the payments read model as the refunds service keeps it (what GET /payments and the
//     dashboard's payments list read), ~3% partly and ~2% fully refunded (refunded_cents set; no refund rows);
//   - sessions.payment_intents: the intents' read-model rows with the resource GET answers (status succeeded);
//   - sessions.payments: sessions' own record of each payment.
// Not written: the event streams, the outbox, the ledger's postings and the refunds' own rows. A page of a list
// reads none of these; a detail page of a seeded object has no timeline.
//
// As a script it also measures: node -r ./tools/swc-register.js bench/operations-seed.ts [--count 100000]
// seeds a fresh database (with two neighbours: another merchant and the live environment, a fifth as big each)
// and prints EXPLAIN ANALYZE and timings of the exact statements the services run for a first page and filtered
// pages of payments and intents.
import { createTestDatabase } from '@payments/testing';
import type { DataSource, EntityManager } from 'typeorm';
import { REFUNDS_MIGRATIONS } from '../apps/refunds/src/migrations/refunds-schema';
import { NO_FILTER, RefundsRepository, type ListFilterTerms } from '../apps/refunds/src/refunds/refunds.repository';
import { SESSIONS_MIGRATIONS } from '../apps/sessions/src/migrations/sessions-schema';
import { SessionReadModel, type SessionListFilter } from '../apps/sessions/src/persistence/session-read-model';
import { PAYMENT_INTENTS_LAYOUT } from '../apps/sessions/src/payment-intents/payment-intent.kind';
import { numberArg } from './bench-support';

export interface SeedOptions {
  merchantId: string;
  environment: 'live' | 'test';
  count: number;
  /** Payment ids are idBase+1 .. idBase+count (keep ranges apart when seeding several merchants). */
  idBase: number;
  /** The newest payment's time; the others go back one year, evenly. */
  newest?: Date;
  sessionsSchema?: string;
  refundsSchema?: string;
}

type Query = (text: string, params?: unknown[]) => Promise<unknown>;

/**
 * Seeds one merchant's history (see the file's head for what is written). `query` runs one statement (a pg
 * Client's or a DataSource's query). Ends with ANALYZE, so the planner knows the tables' new sizes.
 */
export async function seedOperationsHistory(query: Query, options: SeedOptions): Promise<void> {
  const sessions = options.sessionsSchema ?? 'sessions';
  const refunds = options.refundsSchema ?? 'refunds';
  const newest = options.newest ?? new Date();
  const prefix = options.environment === 'live' ? 'pi_live_' : 'pi_test_';
  const params = [options.merchantId, options.environment, options.count, options.idBase, newest.toISOString(), prefix];
  // One row per n: amounts 0.50..999.99 spread evenly, 2.9% fee, a reference on 4 in 5, one payment every
  // (year / count) going back from `newest`; the intent id carries n so each table agrees.
  const rows = `
    SELECT n, $4::bigint + n AS payment_id, $6 || 'seed' || lpad(($4::bigint + n)::text, 20, '0') AS intent_id,
           a AS amount_cents, round(a * 0.029)::bigint AS fee_cents,
           (ARRAY['togo', 'lahza', 'crypto'])[1 + n % 3] AS method,
           CASE WHEN n % 5 = 0 THEN NULL ELSE 'ord-' || n END AS external_ref,
           $5::timestamptz - make_interval(secs => n * (31536000.0 / $3)) AS paid_at
      FROM generate_series(1, $3::int) AS n, LATERAL (SELECT 50 + (n::bigint * 7919) % 99950 AS a) AS amounts`;
  await query(
    `INSERT INTO "${refunds}".payments (id, merchant_id, environment, source, method, currency, amount_cents, fee_cents, net_cents, reserved_cents, refunded_cents, paid_at, external_ref)
     SELECT payment_id, $1, $2, intent_id, method, 'USD', amount_cents, fee_cents, amount_cents - fee_cents, r, r, paid_at, external_ref
       FROM (${rows}) AS seed, LATERAL (SELECT CASE WHEN n % 50 = 0 THEN amount_cents WHEN n % 33 = 0 THEN amount_cents / 2 ELSE 0 END AS r) AS refunded`,
    params,
  );
  await query(
    `INSERT INTO "${sessions}".payments (id, merchant_id, environment, source_type, source_id, method, currency, amount_cents, fee_cents, net_cents, paid_at)
     SELECT payment_id, $1, $2, 'payment_intent', intent_id, method, 'USD', amount_cents, fee_cents, amount_cents - fee_cents, paid_at FROM (${rows}) AS seed`,
    params,
  );
  const money = (cents: string) => `(${cents} / 100)::text || '.' || lpad((${cents} % 100)::text, 2, '0')`;
  const iso = (time: string) => `to_char((${time}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await query(
    `INSERT INTO "${sessions}".payment_intents (id, merchant_id, environment, status, amount_cents, currency, payment_method, external_ref, payment_id,
        created_at, expires_at, paid_at, updated_at, version, resource)
     SELECT intent_id, $1, $2, 'succeeded', amount_cents, 'USD', method, external_ref, payment_id,
            paid_at - interval '2 minutes', paid_at + interval '28 minutes', paid_at, paid_at, 3,
            jsonb_build_object(
              'id', intent_id, 'object', 'payment_intent', 'status', 'succeeded', 'amount', ${money('amount_cents')}, 'currency', 'USD',
              'fee', ${money('fee_cents')}, 'net_amount', ${money('(amount_cents - fee_cents)')}, 'payment_method', method,
              'external_ref', external_ref, 'paid', true, 'available_methods', jsonb_build_array('togo', 'lahza', 'crypto'),
              'checkout_url', 'https://pay.example/checkout/' || intent_id,
              'crypto', jsonb_build_object('address', NULL, 'requested_amount', ${money('amount_cents')}, 'received_amount', '0.00',
                'remaining_amount', ${money('amount_cents')}, 'overpayment_amount', '0.00', 'txid', NULL),
              'created_at', ${iso("paid_at - interval '2 minutes'")}, 'expires_at', ${iso("paid_at + interval '28 minutes'")},
              'paid_at', ${iso('paid_at')}, 'payment_id', payment_id::text, 'description', NULL, 'metadata', '{}'::jsonb)
       FROM (${rows}) AS seed`,
    params,
  );
  for (const table of [`"${refunds}".payments`, `"${sessions}".payments`, `"${sessions}".payment_intents`]) await query(`ANALYZE ${table}`);
}

/** Runs every statement of `work` under EXPLAIN ANALYZE, keeping the plans (the work sees no rows). */
async function explained(dataSource: DataSource, work: (manager: EntityManager) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const manager = {
    query: async (text: string, params: unknown[]) => {
      const rows = (await dataSource.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)) as Array<{ 'QUERY PLAN': string }>;
      plans.push(rows.map((row) => row['QUERY PLAN']).join('\n'));
      return [];
    },
  } as unknown as EntityManager;
  await work(manager);
  return plans;
}

async function timed(runs: number, work: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, p99: times[Math.min(runs - 1, Math.floor(runs * 0.99))]! };
}

async function main(): Promise<void> {
  const count = numberArg('count', 100_000);
  const db = await createTestDatabase('bench_lists');
  try {
    const sessions = await db.dataSource('sessions', SESSIONS_MIGRATIONS);
    const refunds = await db.dataSource('refunds', REFUNDS_MIGRATIONS);
    const merchant = 'mer_bench_lists';
    const started = Date.now();
    await seedOperationsHistory((text, params) => refunds.query(text, params), { merchantId: merchant, environment: 'test', count, idBase: 0 });
    const seededIn = Date.now() - started;
    await seedOperationsHistory((text, params) => refunds.query(text, params), { merchantId: merchant, environment: 'live', count: count / 5, idBase: 10_000_000 });
    await seedOperationsHistory((text, params) => refunds.query(text, params), { merchantId: 'mer_bench_other', environment: 'test', count: count / 5, idBase: 20_000_000 });
    console.log(`seeded ${count} payments and intents for one merchant in ${seededIn} ms (and ${(2 * count) / 5} for its neighbours)`);

    const scope = { merchantId: merchant, environment: 'test' as const };
    const repository = new RefundsRepository('refunds');
    const [middle] = (await refunds.query(`SELECT paid_at FROM refunds.payments WHERE id = $1`, [count / 2])) as Array<{ paid_at: Date }>;
    const cursor = (await repository.findPayment(refunds.manager, scope, String(count / 2)))!;
    const month = { ...NO_FILTER, createdGte: new Date(middle!.paid_at.getTime() - 15 * 86_400_000), createdLt: middle!.paid_at };
    const paymentCases: Array<[string, ListFilterTerms, string | null, boolean]> = [
      ['payments: first page (25)', NO_FILTER, null, false],
      ['payments: page at the middle (cursor)', NO_FILTER, null, true],
      ['payments: status=refunded', { ...NO_FILTER, status: 'refunded' }, null, false],
      ['payments: status=partially_refunded', { ...NO_FILTER, status: 'partially_refunded' }, null, false],
      ['payments: status=succeeded', { ...NO_FILTER, status: 'succeeded' }, null, false],
      ['payments: amount=500.00', { ...NO_FILTER, amountMinCents: 50_000, amountMaxCents: 50_000 }, null, false],
      ['payments: amount 10.00..20.00', { ...NO_FILTER, amountMinCents: 1_000, amountMaxCents: 2_000 }, null, false],
      ['payments: a 15-day range a half-year back', month, null, false],
      ['payments: external_ref', NO_FILTER, `ord-${count / 2 + 1}`, false],
    ];
    for (const [label, filter, ref, paged] of paymentCases) {
      const run = (manager: EntityManager) => repository.listPayments(manager, scope, 25, paged ? cursor : null, filter, ref);
      const plans = await explained(refunds, run);
      const time = await timed(100, () => run(refunds.manager));
      console.log(`\n== ${label}: median ${time.median.toFixed(2)} ms, p99 ${time.p99.toFixed(2)} ms (query alone, 100 runs)\n${plans.join('\n--\n')}`);
    }

    const intents = new SessionReadModel('sessions', PAYMENT_INTENTS_LAYOUT);
    const none: SessionListFilter = { status: null, createdGte: null, createdLt: null, amountMinCents: null, amountMaxCents: null, externalRef: null };
    const intentCases: Array<[string, SessionListFilter]> = [
      ['intents: first page (25)', none],
      ['intents: status=succeeded', { ...none, status: 'succeeded' }],
      ['intents: status=expired (none)', { ...none, status: 'expired' }],
      ['intents: amount=500.00', { ...none, amountMinCents: 50_000, amountMaxCents: 50_000 }],
      ['intents: external_ref', { ...none, externalRef: `ord-${count / 2 + 1}` }],
    ];
    for (const [label, filter] of intentCases) {
      const run = (manager: EntityManager) => intents.list(manager, scope, filter, new Date(), 25, null);
      const plans = await explained(sessions, run);
      const time = await timed(100, () => run(sessions.manager));
      console.log(`\n== ${label}: median ${time.median.toFixed(2)} ms, p99 ${time.p99.toFixed(2)} ms\n${plans.join('\n--\n')}`);
    }
  } finally {
    await db.drop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
