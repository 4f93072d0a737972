import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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

/** Events a consumer parked on `<topic>.dlq` (topic: the one it came from); nothing reads the DLQ by itself. */
export const eventsDeadLettered = new Counter({
  name: 'events_dead_lettered_total',
  help: 'Events parked on a dead-letter topic, by consumer and the topic they came from',
  labelNames: ['consumer', 'topic'] as const,
  registers: [metricsRegistry],
});

/** Per partition this instance consumes: messages not yet handled, as of its last fetch of that partition. */
export const consumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages of a partition not yet handled by this consumer (set at each fetched batch; partitions handed to another member drop out)',
  labelNames: ['consumer', 'topic', 'partition'] as const,
  registers: [metricsRegistry],
});

const outboxAgeReaders = new Map<string, () => Promise<number>>();
/** A scrape waits this long at most for the database; a slow or failed read leaves the last value. */
const OUTBOX_AGE_READ_MS = 2000;

/** Read from the database at each scrape, so it grows while the relay is stopped or failing too. */
export const outboxOldestAge = new Gauge({
  name: 'outbox_oldest_unsent_age_seconds',
  help: 'Age of the oldest outbox row not yet sent to Kafka (0 when none waits)',
  labelNames: ['schema'] as const,
  registers: [metricsRegistry],
  async collect() {
    await Promise.all(
      [...outboxAgeReaders].map(async ([schema, read]) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, OUTBOX_AGE_READ_MS, undefined)));
        try {
          const age = await Promise.race([read(), late]);
          if (age !== undefined) this.set({ schema }, age);
        } catch {
          // The database is away: readiness says so; the gauge keeps its last value.
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  },
});

/** Reports `schema`'s outbox age at every scrape until the returned function is called. */
export function watchOutboxAge(schema: string, read: () => Promise<number>): () => void {
  outboxAgeReaders.set(schema, read);
  return () => {
    outboxAgeReaders.delete(schema);
  };
}
