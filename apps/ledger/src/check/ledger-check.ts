import { qualified } from '@payments/database';
import { QueryFailedError, type DataSource } from 'typeorm';

/** One broken invariant, with the rows that break it (at most REPORT_ROWS of them). */
export interface CheckFinding {
  invariant: string;
  count: number;
  examples: Array<Record<string, unknown>>;
}

export interface LedgerCheckReport {
  ok: boolean;
  merchantId: string | null;
  postings: number;
  findings: CheckFinding[];
  /** Payments sessions has made that the ledger has not booked yet but may still (newer than the grace period). */
  pendingPayments: number;
  /** Refunds booked before their payment (newer than the grace period): the payment's event may still be on its way. */
  pendingRefunds: number;
  /** Refunds the refunds service completed that the ledger has not booked yet but may still (newer than the grace period). */
  pendingCompletedRefunds: number;
  /**
   * How many of each owner's rows the journal was compared with (sessions' payments, the refunds service's
   * completed refunds); null for an owner whose table could not be read, and altogether when asked for the journal only.
   */
  compared: { sessionsPayments: number | null; completedRefunds: number | null } | null;
  /** The owners' tables that could not be read: each is also a finding (the check is incomplete, so not ok). */
  unreadable: UnreadableOwner[];
}

export interface UnreadableOwner {
  owner: 'sessions' | 'refunds';
  table: string;
  reason: string;
}

const REPORT_ROWS = 20;
/**
 * A payment younger than this may still be on its way to the ledger: not yet a missing posting. Likewise a refund
 * booked less than this ago whose payment is not: the two events come on different topics, in no set order.
 */
const GRACE_SECONDS = 60;
/** The grace period in SQL: always the second parameter, never spliced into the text. */
const GRACE = 'make_interval(secs => $2::float8)';

/** A query's parameters: the merchant (or null for all) and, where it reads the grace period, the seconds. */
function paramsOf(sql: string, merchantId: string | null, graceSeconds: number): unknown[] {
  return sql.includes(GRACE) ? [merchantId, graceSeconds] : [merchantId];
}

interface Invariant {
  name: string;
  /** Rows that break it; `$1` is the merchant id or null for all. */
  sql: string;
  /** The grace `$2` reads: a payment's (default) or a wallet payment's session's. */
  grace?: 'payment' | 'wallet';
}

/**
 * A wallet debit younger than this may still have its session's success on its way (sessions records the payment
 * after the ledger answers, then publishes the event): not yet a debit without a succeeded session.
 */
const WALLET_GRACE_SECONDS = 300;

/**
 * Verifies the journal against itself, its balances, sessions' payments and the refunds service's refunds: every
 * invariant an auditor would ask for, each as one query that lists what breaks it. Read-only. `journalOnly` leaves
 * the owners' data out (a ledger run without them, as the benchmark does); the report then says so.
 */
export async function checkLedger(
  dataSource: DataSource,
  schemas: { ledger: string; sessions: string; refunds: string },
  merchantId: string | null,
  {
    graceSeconds = GRACE_SECONDS,
    walletGraceSeconds = WALLET_GRACE_SECONDS,
    journalOnly = false,
  }: { graceSeconds?: number; walletGraceSeconds?: number; journalOnly?: boolean } = {},
): Promise<LedgerCheckReport> {
  const t = (table: string) => qualified(schemas.ledger, table);
  const grace = GRACE;
  const seconds = Math.max(0, Math.trunc(graceSeconds));
  const walletSeconds = Math.max(0, Math.trunc(walletGraceSeconds));
  // A wallet payment posting's wallet account, and the wallet accounts' entries.
  const walletOf = (alias: string) => `${alias}.wallet_id || ':' || ${alias}.environment || ':wallet'`;
  const isWalletAccount = (column: string) => `split_part(${column}, ':', 3) = 'wallet'`;
  // A refund's payment: the payment posting of the same merchant, environment and payment id.
  const paymentOfRefund = `p.kind = 'payment' AND p.payment_id = r.payment_id AND p.merchant_id = r.merchant_id AND p.environment = r.environment`;
  const merchantOfAccount = `split_part(account, ':', 1)`;
  const invariants: Invariant[] = [
    {
      name: 'each posting sums to zero over two or more entries',
      sql: `SELECT p.id AS posting_id, coalesce(sum(e.amount_cents), 0)::text AS sum_cents, count(e.*)::int AS entries
            FROM ${t('postings')} p LEFT JOIN ${t('entries')} e ON e.posting_id = p.id
            WHERE $1::text IS NULL OR p.merchant_id = $1
            GROUP BY p.id HAVING coalesce(sum(e.amount_cents), 0) <> 0 OR count(e.*) < 2`,
    },
    {
      // The database's triggers refuse it; the check does not take their word for it.
      name: 'every entry belongs to a posting',
      sql: `SELECT e.posting_id, e.account, e.amount_cents::text AS amount_cents
            FROM ${t('entries')} e LEFT JOIN ${t('postings')} p ON p.id = e.posting_id
            WHERE p.id IS NULL AND ($1::text IS NULL OR split_part(e.account, ':', 1) = $1)`,
    },
    {
      name: 'no entry mixes environments',
      sql: `SELECT e.posting_id, e.account, e.environment AS entry_environment, p.environment AS posting_environment
            FROM ${t('entries')} e JOIN ${t('postings')} p ON p.id = e.posting_id
            WHERE ($1::text IS NULL OR p.merchant_id = $1)
              AND (e.environment <> p.environment OR split_part(e.account, ':', 2) <> p.environment)`,
    },
    {
      name: 'each stored balance equals the sum of its account entries',
      sql: `WITH entry_sums AS (SELECT account, sum(amount_cents) AS s FROM ${t('entries')} GROUP BY account),
                 balance_sums AS (SELECT account, sum(sum_cents) AS s FROM ${t('balances')} GROUP BY account)
            SELECT coalesce(e.account, b.account) AS account, coalesce(e.s, 0)::text AS entries_cents, coalesce(b.s, 0)::text AS balance_cents
            FROM entry_sums e FULL JOIN balance_sums b ON b.account = e.account
            WHERE coalesce(e.s, 0) <> coalesce(b.s, 0)
              AND ($1::text IS NULL OR split_part(coalesce(e.account, b.account), ':', 1) IN ($1, 'platform'))`,
    },
    {
      name: "each merchant's available equals its payments' net, less refunds, plus adjustments",
      sql: `WITH booked AS (SELECT merchant_id, environment, sum(net_cents) AS s FROM ${t('postings')} WHERE merchant_id IS NOT NULL GROUP BY merchant_id, environment),
                 available AS (SELECT ${merchantOfAccount} AS merchant_id, split_part(account, ':', 2) AS environment, -sum(sum_cents) AS s
                               FROM ${t('balances')} WHERE account NOT LIKE 'platform:%' AND NOT ${isWalletAccount('account')} GROUP BY account)
            SELECT coalesce(b.merchant_id, a.merchant_id) AS merchant_id, coalesce(b.environment, a.environment) AS environment,
                   coalesce(b.s, 0)::text AS booked_net_cents, coalesce(a.s, 0)::text AS available_cents
            FROM booked b FULL JOIN available a ON a.merchant_id = b.merchant_id AND a.environment = b.environment
            WHERE coalesce(b.s, 0) <> coalesce(a.s, 0) AND ($1::text IS NULL OR coalesce(b.merchant_id, a.merchant_id) = $1)`,
    },
    {
      name: 'one posting per payment and per refund',
      sql: `SELECT kind, CASE WHEN kind = 'payment' THEN payment_id ELSE source END AS booked, count(*)::int AS postings
            FROM ${t('postings')}
            WHERE kind IN ('payment', 'refund') AND ($1::text IS NULL OR merchant_id = $1)
            GROUP BY 1, 2 HAVING count(*) > 1`,
    },
    {
      // Booked past the grace period without its payment: the refund moved money the journal never received.
      name: 'every refund refunds a booked payment',
      sql: `SELECT r.source AS refund_id, r.payment_id, r.merchant_id, r.environment, r.amount_cents::text AS amount_cents, r.created_at
            FROM ${t('postings')} r
            WHERE r.kind = 'refund' AND ($1::text IS NULL OR r.merchant_id = $1) AND r.created_at < now() - ${grace}
              AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE ${paymentOfRefund})
            ORDER BY r.created_at`,
    },
    {
      name: "a payment's refunds never exceed its amount",
      sql: `SELECT p.payment_id, p.merchant_id, p.environment, p.amount_cents::text AS payment_cents, sum(r.amount_cents)::text AS refunded_cents
            FROM ${t('postings')} r JOIN ${t('postings')} p ON ${paymentOfRefund}
            WHERE r.kind = 'refund' AND ($1::text IS NULL OR r.merchant_id = $1)
            GROUP BY p.payment_id, p.merchant_id, p.environment, p.amount_cents HAVING sum(r.amount_cents) > p.amount_cents`,
    },
    // Customers' wallets (no merchant's: checked on the whole journal only, not for one merchant).
    {
      name: 'every wallet balance equals the sum of its entries and is never negative',
      sql: `WITH entry_sums AS (SELECT account, sum(amount_cents) AS s FROM ${t('entries')} WHERE ${isWalletAccount('account')} GROUP BY account),
                 balance_sums AS (SELECT account, sum(sum_cents) AS s FROM ${t('balances')} WHERE ${isWalletAccount('account')} GROUP BY account)
            SELECT coalesce(e.account, b.account) AS account, (-coalesce(e.s, 0))::text AS entries_balance_cents, (-coalesce(b.s, 0))::text AS stored_balance_cents
            FROM entry_sums e FULL JOIN balance_sums b ON b.account = e.account
            WHERE $1::text IS NULL AND (coalesce(e.s, 0) <> coalesce(b.s, 0) OR coalesce(e.s, 0) > 0 OR coalesce(b.s, 0) > 0)`,
    },
    {
      // In the order the postings were written: a payment waits for the wallet's row lock, so it comes after
      // every credit it could spend; a running balance below zero is a debit the wallet did not hold.
      name: 'no wallet ever went below zero',
      sql: `SELECT account, posting_id, (-running)::text AS balance_cents FROM (
              SELECT e.account, e.posting_id, sum(e.amount_cents) OVER (PARTITION BY e.account ORDER BY p.created_at, p.id) AS running
              FROM ${t('entries')} e JOIN ${t('postings')} p ON p.id = e.posting_id
              WHERE ${isWalletAccount('e.account')}) AS history
            WHERE $1::text IS NULL AND running > 0`,
    },
    {
      name: 'every wallet payment posting has exactly one wallet entry: a debit of its amount on its own wallet',
      sql: `SELECT p.id AS posting_id, p.payment_id, p.wallet_id, p.amount_cents::text AS amount_cents,
                   count(e.*)::int AS wallet_entries, count(e.*) FILTER (WHERE e.account = ${walletOf('p')} AND e.amount_cents = p.amount_cents)::int AS matching
            FROM ${t('postings')} p LEFT JOIN ${t('entries')} e ON e.posting_id = p.id AND ${isWalletAccount('e.account')}
            WHERE p.kind = 'payment' AND p.wallet_id IS NOT NULL AND ($1::text IS NULL OR p.merchant_id = $1)
            GROUP BY p.id
            HAVING count(e.*) <> 1 OR count(e.*) FILTER (WHERE e.account = ${walletOf('p')} AND e.amount_cents = p.amount_cents) <> 1`,
    },
    {
      name: 'every wallet entry is on a posting of that wallet',
      sql: `SELECT e.posting_id, e.account, p.kind, p.wallet_id
            FROM ${t('entries')} e JOIN ${t('postings')} p ON p.id = e.posting_id
            WHERE ${isWalletAccount('e.account')} AND ($1::text IS NULL OR p.merchant_id = $1)
              AND (p.wallet_id IS NULL OR e.account <> ${walletOf('p')})`,
    },
    {
      name: 'every wallet payment answered paid has its posting, and every wallet payment posting its answer',
      sql: `SELECT coalesce(a.payment_id, p.payment_id) AS payment_id, a.outcome, a.posting_id AS answered_posting_id, p.id AS posting_id
            FROM (SELECT * FROM ${t('wallet_payments')} WHERE outcome = 'paid') a
            FULL JOIN (SELECT * FROM ${t('postings')} WHERE kind = 'payment' AND wallet_id IS NOT NULL) p ON p.id = a.posting_id
            WHERE (a.payment_id IS NULL OR p.id IS NULL OR a.payment_id <> p.payment_id OR a.wallet_id <> p.wallet_id)
              AND ($1::text IS NULL OR coalesce(a.merchant_id, p.merchant_id) = $1)`,
    },
    {
      // Sessions recorded by the consumer from payment events without the wallet mark (see walletPaymentPassedOver);
      // the marked ones are compared with sessions' own data (compareWithOwners).
      name: 'every session that succeeded paid from a wallet has its wallet debit',
      sql: `SELECT s.payment_id, s.wallet_id, s.merchant_id, s.environment, s.source, s.event_id
            FROM ${t('wallet_payment_sessions')} s
            WHERE ($1::text IS NULL OR s.merchant_id = $1)
              AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE p.kind = 'payment' AND p.payment_id = s.payment_id AND p.wallet_id = s.wallet_id
                              AND p.merchant_id = s.merchant_id AND p.environment = s.environment)`,
    },
  ];

  const findings: CheckFinding[] = [];
  for (const invariant of invariants) {
    const rows = (await dataSource.query(invariant.sql, paramsOf(invariant.sql, merchantId, invariant.grace === 'wallet' ? walletSeconds : seconds))) as Array<
      Record<string, unknown>
    >;
    if (rows.length > 0) findings.push({ invariant: invariant.name, count: rows.length, examples: rows.slice(0, REPORT_ROWS) });
  }

  const [{ n: postings }] = (await dataSource.query(`SELECT count(*)::int AS n FROM ${t('postings')} WHERE $1::text IS NULL OR merchant_id = $1`, [merchantId])) as [
    { n: number },
  ];

  const [{ n: pendingRefunds }] = (await dataSource.query(
    `SELECT count(*)::int AS n FROM ${t('postings')} r
     WHERE r.kind = 'refund' AND ($1::text IS NULL OR r.merchant_id = $1) AND r.created_at >= now() - ${grace}
       AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE ${paymentOfRefund})`,
    [merchantId, seconds],
  )) as [{ n: number }];

  const owners: OwnersComparison = journalOnly
    ? { findings: [], unreadable: [], compared: null, pendingPayments: 0, pendingCompletedRefunds: 0 }
    : await compareWithOwners(dataSource, schemas, merchantId, seconds, walletSeconds);
  findings.push(...owners.findings);

  return {
    ok: findings.length === 0,
    merchantId,
    postings,
    findings,
    pendingPayments: owners.pendingPayments,
    pendingRefunds,
    pendingCompletedRefunds: owners.pendingCompletedRefunds,
    compared: owners.compared,
    unreadable: owners.unreadable,
  };
}

interface OwnersComparison {
  findings: CheckFinding[];
  unreadable: UnreadableOwner[];
  compared: LedgerCheckReport['compared'];
  pendingPayments: number;
  pendingCompletedRefunds: number;
}

/** One owner's table compared with the journal: what breaks, how many rows were compared, how many are on their way. */
interface OwnerComparison {
  findings: CheckFinding[];
  compared: number;
  pending: number;
}

/** Why `schema.table` cannot be read on this connection, or null when it can. */
async function unreadableReason(dataSource: DataSource, schema: string, table: string): Promise<string | null> {
  const [row] = (await dataSource.query(
    `SELECT c.oid IS NOT NULL AS present, c.oid IS NOT NULL AND has_table_privilege(c.oid, 'SELECT') AS readable
     FROM (SELECT to_regclass(format('%I.%I', $1::text, $2::text)) AS oid) c`,
    [schema, table],
  )) as Array<{ present: boolean; readable: boolean }>;
  if (!row?.present) return `no table ${schema}.${table} in this database`;
  if (!row.readable) return `no permission to read ${schema}.${table}`;
  return null;
}

/**
 * The journal against the data of the services that own what it books: sessions' payments and the refunds
 * service's refunds, read-only on the same connection. A table that cannot be read (missing, not permitted, or
 * not of the shape expected) is a finding of its own: the check is incomplete, so it is not ok.
 */
async function compareWithOwners(
  dataSource: DataSource,
  schemas: { ledger: string; sessions: string; refunds: string },
  merchantId: string | null,
  graceSeconds: number,
  walletGraceSeconds: number,
): Promise<OwnersComparison> {
  const grace = GRACE;
  const t = (table: string) => qualified(schemas.ledger, table);
  const scope = (alias: string) => `($1::text IS NULL OR ${alias}.merchant_id = $1)`;
  const rows = async (sql: string) => (await dataSource.query(sql, paramsOf(sql, merchantId, graceSeconds))) as Array<Record<string, unknown>>;
  const count = async (sql: string) => ((await dataSource.query(sql, paramsOf(sql, merchantId, graceSeconds))) as Array<{ n: number }>)[0]!.n;
  const finding = (invariant: string, broken: Array<Record<string, unknown>>): CheckFinding[] =>
    broken.length > 0 ? [{ invariant, count: broken.length, examples: broken.slice(0, REPORT_ROWS) }] : [];
  const result: OwnersComparison = { findings: [], unreadable: [], compared: null, pendingPayments: 0, pendingCompletedRefunds: 0 };

  /** Compares one owner's table, or records it as unreadable (a finding naming the owner). */
  const withOwner = async (owner: UnreadableOwner['owner'], what: string, schema: string, table: string, compare: () => Promise<OwnerComparison>) => {
    let reason = await unreadableReason(dataSource, schema, table);
    if (!reason) {
      try {
        const compared = await compare();
        result.findings.push(...compared.findings);
        return compared;
      } catch (error) {
        // Only SELECTs run here: a failure is the owner's table not being what the check reads.
        if (!(error instanceof QueryFailedError)) throw error;
        reason = `reading ${schema}.${table} failed: ${error.message}`;
      }
    }
    const unreadable: UnreadableOwner = { owner, table: `${schema}.${table}`, reason };
    result.unreadable.push(unreadable);
    result.findings.push({ invariant: `${what} can be read (without them the check is incomplete)`, count: 1, examples: [{ ...unreadable }] });
    return null;
  };

  // Sessions' payments: each booked (past the grace period), and each payment posting one of them.
  const payments = qualified(schemas.sessions, 'payments');
  const unbookedPayment = `NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE p.kind = 'payment' AND p.payment_id = s.id::text)`;
  const sessions = await withOwner('sessions', "sessions' payments", schemas.sessions, 'payments', async () => {
    const missing = await rows(
      `SELECT s.id::text AS payment_id, s.merchant_id, s.environment, s.paid_at
       FROM ${payments} s
       WHERE ${scope('s')} AND s.paid_at < now() - ${grace} AND ${unbookedPayment}
       ORDER BY s.paid_at`,
    );
    // A wallet debit comes before sessions records its payment: younger than the wallet grace, it is on its way.
    const unknown = (await dataSource.query(
      `SELECT p.id AS posting_id, p.payment_id FROM ${t('postings')} p
       WHERE p.kind = 'payment' AND ${scope('p')}
         AND NOT (p.wallet_id IS NOT NULL AND p.created_at >= now() - ${grace})
         AND NOT EXISTS (SELECT 1 FROM ${payments} s WHERE s.id::text = p.payment_id AND s.merchant_id = p.merchant_id AND s.environment = p.environment
                         AND s.amount_cents = p.amount_cents AND s.net_cents = p.net_cents)`,
      [merchantId, walletGraceSeconds],
    )) as Array<Record<string, unknown>>;
    // Past the wallet grace: the customer's money left the wallet and sessions holds no payment for it.
    const walletUnpaid = (await dataSource.query(
      `SELECT p.id AS posting_id, p.payment_id, p.wallet_id, p.merchant_id, p.environment, p.source, p.amount_cents::text AS amount_cents, p.created_at
       FROM ${t('postings')} p
       WHERE p.kind = 'payment' AND p.wallet_id IS NOT NULL AND ${scope('p')} AND p.created_at < now() - ${grace}
         AND NOT EXISTS (SELECT 1 FROM ${payments} s WHERE s.id::text = p.payment_id AND s.merchant_id = p.merchant_id AND s.environment = p.environment)
       ORDER BY p.created_at`,
      [merchantId, walletGraceSeconds],
    )) as Array<Record<string, unknown>>;
    return {
      findings: [
        ...finding('every payment sessions made is booked', missing),
        ...finding('every payment posting matches a payment sessions made', unknown),
        ...finding('every wallet debit has its session succeeded', walletUnpaid),
      ],
      compared: await count(`SELECT count(*)::int AS n FROM ${payments} s WHERE ${scope('s')}`),
      pending: await count(`SELECT count(*)::int AS n FROM ${payments} s WHERE ${scope('s')} AND s.paid_at >= now() - ${grace} AND ${unbookedPayment}`),
    };
  });

  // Sessions' payments made from a wallet (its succeeded attempt names the wallet and the payment): each is that
  // wallet's debit, of the payment's merchant and amounts. The ledger's consumer passes over their events (they
  // carry the wallet mark), so this is where a session paid from a wallet without its debit shows. A session paid
  // another way while its wallet attempt was open has another payment: its debit shows as one without a session.
  // Only with sessions' payments read (without them the check is incomplete already, and says so once).
  const attempts = qualified(schemas.sessions, 'provider_attempts');
  if (sessions) await withOwner('sessions', "sessions' wallet attempts", schemas.sessions, 'provider_attempts', async () => {
    const undebited = await rows(
      `SELECT s.id::text AS payment_id, a.wallet_id, s.merchant_id, s.environment, a.session_id AS source, s.amount_cents::text AS amount_cents, s.paid_at
       FROM ${attempts} a JOIN ${payments} s ON s.id::text = a.payment_id
       WHERE a.status = 'succeeded' AND a.wallet_id IS NOT NULL AND ${scope('s')}
         AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE p.kind = 'payment' AND p.payment_id = a.payment_id AND p.wallet_id = a.wallet_id
                         AND p.merchant_id = s.merchant_id AND p.environment = s.environment AND p.amount_cents = s.amount_cents AND p.net_cents = s.net_cents)
       ORDER BY s.paid_at`,
    );
    return { findings: finding('every payment sessions made from a wallet has its wallet debit', undebited), compared: 0, pending: 0 };
  });

  // The refunds service's completed refunds (pending and failed ones move no money): each booked exactly once with
  // its payment, amount, merchant and environment (past the grace period when not booked at all), and each refund
  // posting one of them. A refund is completed in the transaction that writes its event, so a posting never
  // comes before it.
  const refunds = qualified(schemas.refunds, 'refunds');
  const sameRefund = `p.merchant_id = r.merchant_id AND p.environment = r.environment AND p.amount_cents = r.amount_cents AND p.payment_id = r.payment_id::text`;
  const completed = `SELECT r.id, r.payment_id, r.merchant_id, r.environment, r.amount_cents, coalesce(r.completed_at, r.created_at) AS completed_at,
         (SELECT count(*)::int FROM ${t('postings')} p WHERE p.kind = 'refund' AND p.source = r.id) AS postings,
         (SELECT count(*)::int FROM ${t('postings')} p WHERE p.kind = 'refund' AND p.source = r.id AND ${sameRefund}) AS matching
       FROM ${refunds} r WHERE r.status = 'completed' AND ${scope('r')}`;
  const onItsWay = `c.postings = 0 AND c.completed_at >= now() - ${grace}`;
  const refundsService = await withOwner('refunds', "the refunds service's refunds", schemas.refunds, 'refunds', async () => {
    const unbooked = await rows(
      `SELECT c.id AS refund_id, c.payment_id::text AS payment_id, c.merchant_id, c.environment, c.amount_cents::text AS amount_cents, c.completed_at,
              c.postings, c.matching AS matching_postings
       FROM (${completed}) c
       WHERE c.matching <> 1 AND NOT (${onItsWay})
       ORDER BY c.completed_at`,
    );
    const unknown = await rows(
      `SELECT p.id AS posting_id, p.source AS refund_id, p.payment_id, p.merchant_id, p.environment, p.amount_cents::text AS amount_cents
       FROM ${t('postings')} p
       WHERE p.kind = 'refund' AND ${scope('p')}
         AND NOT EXISTS (SELECT 1 FROM ${refunds} r WHERE r.id = p.source AND r.status = 'completed' AND ${sameRefund})
       ORDER BY p.created_at`,
    );
    return {
      findings: [
        ...finding('every completed refund has one refund posting of its amount, merchant and environment', unbooked),
        ...finding('every refund posting matches a completed refund', unknown),
      ],
      compared: await count(`SELECT count(*)::int AS n FROM ${refunds} r WHERE r.status = 'completed' AND ${scope('r')}`),
      pending: await count(`SELECT count(*)::int AS n FROM (${completed}) c WHERE ${onItsWay}`),
    };
  });

  result.compared = { sessionsPayments: sessions?.compared ?? null, completedRefunds: refundsService?.compared ?? null };
  result.pendingPayments = sessions?.pending ?? 0;
  result.pendingCompletedRefunds = refundsService?.pending ?? 0;
  return result;
}

/** The report as an operator reads it. */
export function reportLines(report: LedgerCheckReport): string[] {
  const scope = report.merchantId ? `merchant ${report.merchantId}` : 'all merchants';
  const postings = `${report.postings} posting${report.postings === 1 ? '' : 's'}`;
  const verdict = report.ok ? 'every invariant holds' : `${report.findings.length} invariant(s) broken${report.unreadable.length > 0 ? ', check incomplete' : ''}`;
  const lines = [`ledger check (${scope}): ${postings}, ${verdict}.`];
  for (const finding of report.findings) {
    lines.push(`BROKEN: ${finding.invariant}: ${finding.count} row(s)`);
    for (const example of finding.examples) lines.push(`  ${JSON.stringify(example)}`);
  }
  for (const owner of report.unreadable) {
    lines.push(`INCOMPLETE: the ${owner.owner} service's data could not be read (${owner.reason}): the journal was not compared with it.`);
  }
  if (report.compared) {
    const of = (n: number | null, what: string) => (n === null ? `no ${what} (unreadable)` : `${n} ${what}`);
    lines.push(`Compared with ${of(report.compared.sessionsPayments, "payment(s) of sessions")} and ${of(report.compared.completedRefunds, 'completed refund(s) of the refunds service')}.`);
  } else {
    lines.push('Journal only: payments and refunds not compared with sessions and the refunds service.');
  }
  if (report.pendingPayments > 0) lines.push(`${report.pendingPayments} payment(s) of the last ${GRACE_SECONDS} s not booked yet (on their way).`);
  if (report.pendingCompletedRefunds > 0) lines.push(`${report.pendingCompletedRefunds} refund(s) completed in the last ${GRACE_SECONDS} s not booked yet (on their way).`);
  if (report.pendingRefunds > 0) lines.push(`${report.pendingRefunds} refund(s) booked in the last ${GRACE_SECONDS} s before their payment (its event on its way).`);
  return lines;
}
