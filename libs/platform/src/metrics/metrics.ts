import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** One registry a process: default Node metrics plus HTTP timings; services add their own counters to it. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [metricsRegistry],
});

/** Gateway side of request/reply: from send to reply, per command topic (includes Kafka both ways). */
export const rpcRoundTripDuration = new Histogram({
  name: 'rpc_round_trip_seconds',
  help: 'Command round trip over Kafka as the caller sees it',
  labelNames: ['topic', 'outcome'] as const,
  buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 5],
  registers: [metricsRegistry],
});

/** Service side: time inside the command handler (database work), per command topic. */
export const commandHandleDuration = new Histogram({
  name: 'command_handle_seconds',
  help: 'Time a service spends handling a command',
  labelNames: ['topic', 'outcome'] as const,
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
  registers: [metricsRegistry],
});
