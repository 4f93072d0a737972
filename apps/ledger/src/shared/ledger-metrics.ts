import { metricsRegistry } from '@payments/platform';
import { Counter } from 'prom-client';

export const postingsWritten = new Counter({
  name: 'ledger_postings_total',
  help: 'Postings written to the journal',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const bookingsRefused = new Counter({
  name: 'ledger_refused_events_total',
  help: 'Events the ledger would not book (parked on the dead-letter topic with the reason)',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export const walletPayments = new Counter({
  name: 'ledger_wallet_payments_total',
  help: 'Wallet payments answered (wallets.pay), by outcome: paid, insufficient_funds, or a repeat answered from its first answer',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/** Background `ledger check` passes (LedgerCheckScheduler) by result: ok, problems (a broken invariant), error (it did not finish). */
export const ledgerChecks = new Counter({
  name: 'ledger_checks_total',
  help: 'Background ledger checks by result (ok, problems, error); alert on any problems or error',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});
