import { metricsRegistry } from '@payments/platform';
import { Counter } from 'prom-client';

export const commandConflicts = new Counter({
  name: 'sessions_command_conflicts_total',
  help: 'Commands retried because another command changed the same intent or invoice first',
  registers: [metricsRegistry],
});

export const expiredSessions = new Counter({
  name: 'sessions_expired_total',
  help: 'Payment intents and invoices expired by the expiry job',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const expiryFailures = new Counter({
  name: 'sessions_expiry_failures_total',
  help: 'Intents or invoices the expiry job could not expire (retried on the next run)',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const providerAttemptOutcomes = new Counter({
  name: 'sessions_provider_attempts_total',
  help: 'Provider payment attempts resolved, by outcome (succeeded, succeeded_late, failed, amount_mismatch)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** Every verify asked of a provider: answered, or no outcome (unavailable: down or timed out; unreadable: an answer we could not read). */
export const providerVerifications = new Counter({
  name: 'sessions_provider_verifications_total',
  help: 'Payment verifications asked of a provider, by result (answered, unavailable, unreadable); the attempt stays open and is verified again after the last two',
  labelNames: ['provider', 'result'] as const,
  registers: [metricsRegistry],
});

export const providerRefundOutcomes = new Counter({
  name: 'sessions_provider_refunds_total',
  help: 'Refunds asked of a provider, resolved, by outcome (completed, failed)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const walletAttemptOutcomes = new Counter({
  name: 'sessions_wallet_attempts_total',
  help: 'Wallet (togo) payment attempts asked of the ledger, by outcome (succeeded, succeeded_late, declined, pending: no answer yet, refused: the ledger refused the command)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const walletTopUpOutcomes = new Counter({
  name: 'sessions_wallet_top_ups_total',
  help: 'Card top-ups of wallets, by outcome (succeeded: verified and credited, failed, pending: verified but the ledger not answered yet)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});
