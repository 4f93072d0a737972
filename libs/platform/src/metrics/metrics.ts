import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * How often the event-loop delay is sampled for the default metrics' nodejs_eventloop_lag_* figures. prom-client's
 * default, 10 ms, is a timer that woke every service a hundred times a second while idle (most of an idle
 * stack's wake-ups); a stall long enough to matter still shows at 100 ms.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** One registry a process: default Node metrics plus HTTP timings; services add their own counters to it. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [metricsRegistry],
});

/** Caller side of a command: from send to reply, per command (includes the transport both ways and retries). */
export const rpcRoundTripDuration = new Histogram({
  name: 'rpc_round_trip_seconds',
  help: 'Command round trip as the caller sees it',
  labelNames: ['command', 'outcome'] as const,
  buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 5],
  registers: [metricsRegistry],
});

/** Owner side: time inside the command handler (database work), per command. */
export const commandHandleDuration = new Histogram({
  name: 'command_handle_seconds',
  help: 'Time a service spends handling a command',
  labelNames: ['command', 'outcome'] as const,
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1],
  registers: [metricsRegistry],
});

/** Outbox rows the relay set aside because no batch could carry them (each is in `<schema>.outbox_parked`). */
export const outboxRowsParked = new Counter({
  name: 'outbox_rows_parked_total',
  help: 'Outbox rows parked (not sent) because they are larger than Kafka accepts',
  labelNames: ['schema'] as const,
  registers: [metricsRegistry],
});
