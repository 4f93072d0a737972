import { qualified } from '@payments/database';
import type { DataSource } from 'typeorm';

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
  /** Why the payments of sessions could not be compared, when they could not. */
  sessionsSkipped: string | null;
}

const REPORT_ROWS = 20;
/**
 * A payment younger than this may still be on its way to the ledger: not yet a missing posting. Likewise a refund
 * booked less than this ago whose payment is not: the two events come on different topics, in no set order.
 */
const GRACE_SECONDS = 60;

interface Invariant {
  name: string;
  /** Rows that break it; `$1` is the merchant id or null for all. */
  sql: string;
}

/**
 * Verifies the journal against itself, its balances and sessions' payments: every invariant an auditor would
 * ask for, each as one query that lists what breaks it. Read-only.
 */
export async function checkLedger(
  dataSource: DataSource,
  schemas: { ledger: string; sessions: string },
  merchantId: string | null,
  { graceSeconds = GRACE_SECONDS }: { graceSeconds?: number } = {},
): Promise<LedgerCheckReport> {
  const t = (table: string) => qualified(schemas.ledger, table);
  const grace = `make_interval(secs => ${Math.max(0, Math.trunc(graceSeconds))})`;
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
      sql: `WITH booked AS (SELECT merchant_id, environment, sum(net_cents) AS s FROM ${t('postings')} GROUP BY merchant_id, environment),
                 available AS (SELECT ${merchantOfAccount} AS merchant_id, split_part(account, ':', 2) AS environment, -sum(sum_cents) AS s
                               FROM ${t('balances')} WHERE account NOT LIKE 'platform:%' GROUP BY account)
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
  ];

  const findings: CheckFinding[] = [];
  for (const invariant of invariants) {
    const rows = (await dataSource.query(invariant.sql, [merchantId])) as Array<Record<string, unknown>>;
    if (rows.length > 0) findings.push({ invariant: invariant.name, count: rows.length, examples: rows.slice(0, REPORT_ROWS) });
  }

  const [{ n: postings }] = (await dataSource.query(`SELECT count(*)::int AS n FROM ${t('postings')} WHERE $1::text IS NULL OR merchant_id = $1`, [merchantId])) as [
    { n: number },
  ];

  const [{ n: pendingRefunds }] = (await dataSource.query(
    `SELECT count(*)::int AS n FROM ${t('postings')} r
     WHERE r.kind = 'refund' AND ($1::text IS NULL OR r.merchant_id = $1) AND r.created_at >= now() - ${grace}
       AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE ${paymentOfRefund})`,
    [merchantId],
  )) as [{ n: number }];

  let pendingPayments = 0;
  let sessionsSkipped: string | null = null;
  const payments = qualified(schemas.sessions, 'payments');
  const [exists] = (await dataSource.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${schemas.sessions}.payments`])) as Array<{ present: boolean }>;
  if (!exists?.present) {
    sessionsSkipped = `no table ${schemas.sessions}.payments in this database`;
  } else {
    const scope = `($1::text IS NULL OR merchant_id = $1)`;
    const missing = (await dataSource.query(
      `SELECT s.id::text AS payment_id, s.merchant_id, s.environment, s.paid_at
       FROM ${payments} s
       WHERE ${scope.replace('merchant_id', 's.merchant_id')} AND s.paid_at < now() - ${grace}
         AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE p.kind = 'payment' AND p.payment_id = s.id::text)
       ORDER BY s.paid_at`,
      [merchantId],
    )) as Array<Record<string, unknown>>;
    if (missing.length > 0) findings.push({ invariant: 'every payment sessions made is booked', count: missing.length, examples: missing.slice(0, REPORT_ROWS) });
    const unknown = (await dataSource.query(
      `SELECT p.id AS posting_id, p.payment_id FROM ${t('postings')} p
       WHERE p.kind = 'payment' AND ${scope.replace('merchant_id', 'p.merchant_id')}
         AND NOT EXISTS (SELECT 1 FROM ${payments} s WHERE s.id::text = p.payment_id AND s.merchant_id = p.merchant_id AND s.environment = p.environment
                         AND s.amount_cents = p.amount_cents AND s.net_cents = p.net_cents)`,
      [merchantId],
    )) as Array<Record<string, unknown>>;
    if (unknown.length > 0) findings.push({ invariant: 'every payment posting matches a payment sessions made', count: unknown.length, examples: unknown.slice(0, REPORT_ROWS) });
    const [pending] = (await dataSource.query(
      `SELECT count(*)::int AS n FROM ${payments} s
       WHERE ${scope.replace('merchant_id', 's.merchant_id')} AND s.paid_at >= now() - ${grace}
         AND NOT EXISTS (SELECT 1 FROM ${t('postings')} p WHERE p.kind = 'payment' AND p.payment_id = s.id::text)`,
      [merchantId],
    )) as Array<{ n: number }>;
    pendingPayments = pending!.n;
  }

  return { ok: findings.length === 0, merchantId, postings, findings, pendingPayments, pendingRefunds, sessionsSkipped };
}

/** The report as an operator reads it. */
export function reportLines(report: LedgerCheckReport): string[] {
  const scope = report.merchantId ? `merchant ${report.merchantId}` : 'all merchants';
  const postings = `${report.postings} posting${report.postings === 1 ? '' : 's'}`;
  const lines = [`ledger check (${scope}): ${postings}, ${report.ok ? 'every invariant holds' : `${report.findings.length} invariant(s) broken`}.`];
  for (const finding of report.findings) {
    lines.push(`BROKEN: ${finding.invariant}: ${finding.count} row(s)`);
    for (const example of finding.examples) lines.push(`  ${JSON.stringify(example)}`);
  }
  if (report.pendingPayments > 0) lines.push(`${report.pendingPayments} payment(s) of the last ${GRACE_SECONDS} s not booked yet (on their way).`);
  if (report.pendingRefunds > 0) lines.push(`${report.pendingRefunds} refund(s) booked in the last ${GRACE_SECONDS} s before their payment (its event on its way).`);
  if (report.sessionsSkipped) lines.push(`Payments of sessions not compared: ${report.sessionsSkipped}.`);
  return lines;
}
