import { IntervalJob } from '@payments/platform';
import type { DataSource } from 'typeorm';
import { ledgerChecks } from '../shared/ledger-metrics';
import { checkLedger, type LedgerCheckReport } from './ledger-check';

/** Second key of the session advisory lock one instance holds while it checks ('lchk'); the first is hashtext of the schema. */
const LOCK_KEY = 0x6c63686b;

/**
 * `ledger check` in the background, every LEDGER_CHECK_INTERVAL_MS, counted in ledger_checks_total by result so an
 * alert sees a broken invariant without an operator running the command. One instance at a time checks (the others
 * skip the pass, uncounted); the check is read-only.
 */
export class LedgerCheckScheduler extends IntervalJob<LedgerCheckReport | null> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schemas: { ledger: string; sessions: string; refunds: string },
    intervalMs: number,
  ) {
    super('LedgerCheckScheduler', intervalMs);
    // From 0, so the first problem shows as an increase.
    for (const result of ['ok', 'problems', 'error'] as const) ledgerChecks.inc({ result }, 0);
  }

  async runOnce(): Promise<LedgerCheckReport | null> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock(hashtext($1), $2) AS locked', [this.schemas.ledger, LOCK_KEY])) as Array<{ locked: boolean }>;
      if (!locked) return null;
      try {
        const report = await checkLedger(this.dataSource, this.schemas, null);
        ledgerChecks.inc({ result: report.ok ? 'ok' : 'problems' });
        return report;
      } catch (error) {
        ledgerChecks.inc({ result: 'error' });
        throw error;
      } finally {
        await runner.query('SELECT pg_advisory_unlock(hashtext($1), $2)', [this.schemas.ledger, LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  }

  protected override report(report: LedgerCheckReport | null): void {
    if (!report || report.ok) return;
    this.logger.error(
      { findings: report.findings.map((f) => ({ invariant: f.invariant, count: f.count })), unreadable: report.unreadable },
      'ledger check found broken invariants: run `npm run admin -- ledger check` for the rows',
    );
  }
}
