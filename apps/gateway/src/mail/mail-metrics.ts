import { metricsRegistry } from '@payments/platform';
import { Counter } from 'prom-client';

export const mailSent = new Counter({
  name: 'mail_sent_total',
  help: 'Messages the SMTP server took, by kind',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const mailAttemptsFailed = new Counter({
  name: 'mail_attempts_failed_total',
  help: 'Attempts at a message the SMTP server did not take (each is retried on the schedule), by kind',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const mailGivenUp = new Counter({
  name: 'mail_given_up_total',
  help: 'Messages given up unsent (refused for good, or unsent past MAIL_GIVE_UP_AFTER_MS), by kind: alert on any',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});
