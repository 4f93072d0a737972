import { metricsRegistry } from '@payments/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

export const webhookAttempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by result (succeeded, retry, failed, endpoint_gone, refused)',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

/**
 * The same attempts per endpoint (test events left out, as from the endpoint's health), for failure rates per
 * endpoint: one series per endpoint and result, so as many series as endpoints that were sent to.
 */
export const webhookEndpointAttempts = new Counter({
  name: 'webhook_endpoint_attempts_total',
  help: 'Webhook delivery attempts per endpoint by result (succeeded, retry, failed, endpoint_gone, refused); test events not counted',
  labelNames: ['endpoint_id', 'result'] as const,
  registers: [metricsRegistry],
});

export const webhookAttemptDuration = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Time from sending a webhook to its answer (or error)',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const webhookInFlight = new Gauge({
  name: 'webhook_attempts_in_flight',
  help: 'Webhook attempts in flight in this instance',
  registers: [metricsRegistry],
});

export const webhookEndpointsDisabled = new Counter({
  name: 'webhook_endpoints_disabled_total',
  help: 'Endpoints the dispatcher disabled, by reason (gone = 410, failing = failing for 5 days)',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});
