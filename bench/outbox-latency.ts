// Outbox -> Kafka -> inbox latency under a steady write load.
//
//   node -r ./tools/swc-register.js bench/outbox-latency.ts [--rate 1000] [--seconds 30] [--per-tx 5] [--writers 4]
//     [--partitions 3] [--concurrency <partitions consumed concurrently>] [--batch <events per consumer transaction>]
//     [--max-wait <consumer fetch max wait ms>] [--relay-batch <rows>] [--relay-poll <ms>]
//
// Writers commit `rate` events/s in small transactions (a few events each, every few ms) into a fresh database;
// an OutboxRelay publishes them and an EventConsumer applies them (inbox + one effect row each), all in this
// process. Latency is measured per event from the writer's commit to the start of the consumer's handler, to the
// commit of the consumer's transaction (the effect is visible), and for the relay leg alone up to the Kafka
// timestamp of the message. Consumer options left out use the library defaults.
// Every 5 s and at the end it prints p50/p90/p99/max, throughput, the outbox backlog and the consumer lag.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { deadLetterTopic, newEnvelope, registerEventType, type EventEnvelope } from '@payments/events';
import {
  createKafka,
  createProducer,
  ensureTopics,
  EventConsumer,
  MESSAGING_MIGRATIONS,
  OutboxRelay,
  OutboxWriter,
} from '@payments/messaging';
import { createTestDatabase, uniqueName, type TestDatabase } from '@payments/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';

function optionalArg(name: string): number | undefined {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return undefined;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

const arg = (name: string, fallback: number): number => optionalArg(name) ?? fallback;

const RATE = arg('rate', 1000);
const SECONDS = arg('seconds', 30);
const PER_TX = arg('per-tx', 5);
const WRITERS = arg('writers', 4);
const PARTITIONS = arg('partitions', 3);
const CONCURRENCY = optionalArg('concurrency');
const BATCH = optionalArg('batch');
const MAX_WAIT_MS = optionalArg('max-wait');
const RELAY_BATCH = optionalArg('relay-batch');
const RELAY_POLL_MS = optionalArg('relay-poll');
const REPORT_EVERY_MS = 5000;
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const EVENT_TYPE = 'bench.thing_happened';

registerEventType(EVENT_TYPE, { version: 1, dataSchema: { type: 'object', required: ['n'] } });

class CreateBenchEffects1763769800000 implements MigrationInterface {
  name = 'CreateBenchEffects1763769800000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE bench_reader.effects (event_id text NOT NULL, sequence int NOT NULL)');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE bench_reader.effects');
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const f = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(1));
  return `p50 ${f(percentile(sorted, 50))} ms  p90 ${f(percentile(sorted, 90))} ms  p99 ${f(percentile(sorted, 99))} ms  max ${f(sorted[sorted.length - 1] ?? NaN)} ms`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const database = await createTestDatabase('bench');
  try {
    await run(database);
  } finally {
    await database.drop();
  }
}

async function run(database: TestDatabase): Promise<void> {
  const writerDb = await database.dataSource('bench_writer', MESSAGING_MIGRATIONS);
  const readerDb = await database.dataSource('bench_reader', [...MESSAGING_MIGRATIONS, CreateBenchEffects1763769800000]);
  const kafka = createKafka({ brokers: BROKERS, clientId: uniqueName('bench') });
  const topic = `bench.${uniqueName('outbox')}.v1`;
  await ensureTopics(kafka, [topic, deadLetterTopic(topic)], PARTITIONS);
  const producer = createProducer(kafka);
  await producer.connect();

  // Wall clock (Date.now) on both sides: the relay leg is measured against the Kafka message timestamp, which
  // the producer stamps when the relay sends the batch.
  // Either side may come first (the consumer can apply an event before the writer's commit call returned).
  const committedAt = new Map<string, number>();
  const handledAt = new Map<string, { handled: number; sent: number; applied?: number }>();
  let windowLatencies: number[] = [];
  const allLatencies: number[] = [];
  const appliedLatencies: number[] = [];
  const relayLeg: number[] = [];
  const record = (id: string) => {
    const committed = committedAt.get(id);
    const handled = handledAt.get(id);
    if (committed === undefined || handled?.applied === undefined) return;
    const latency = handled.handled - committed;
    windowLatencies.push(latency);
    allLatencies.push(latency);
    appliedLatencies.push(handled.applied - committed);
    relayLeg.push(handled.sent - committed);
    committedAt.delete(id);
    handledAt.delete(id);
  };

  const relay = new OutboxRelay({
    dataSource: writerDb,
    producer,
    schema: 'bench_writer',
    batchSize: RELAY_BATCH,
    pollIntervalMs: RELAY_POLL_MS,
  });
  relay.start();
  const groupId = uniqueName('bench');
  let consumed = 0;
  const consumer = new EventConsumer({
    kafka,
    groupId,
    topics: [topic],
    dataSource: readerDb,
    consumerName: 'bench',
    producer,
    partitionsConsumedConcurrently: CONCURRENCY,
    maxEventsPerTransaction: BATCH,
    maxWaitTimeMs: MAX_WAIT_MS,
    handler: async (envelope, manager, ctx) => {
      // Stamped on the first entry (a failed batch runs it again): the latency is commit -> handler.
      if (!handledAt.has(envelope.id)) handledAt.set(envelope.id, { handled: Date.now(), sent: Number(ctx.timestamp) });
      await manager.query('INSERT INTO bench_reader.effects (event_id, sequence) VALUES ($1, $2)', [
        envelope.id,
        envelope.sequence,
      ]);
    },
    hooks: {
      afterHandle: (envelope, outcome) => {
        if (outcome !== 'handled') return;
        consumed += 1;
        // After the consumer's commit: the latency is commit -> effect visible.
        const handled = handledAt.get(envelope.id);
        if (handled) handled.applied = Date.now();
        record(envelope.id);
      },
    },
  });
  await consumer.start();

  // Writers: each owns its aggregates, so one aggregate's transactions never race each other (as in the
  // services, where optimistic concurrency serialises them).
  const writer = new OutboxWriter();
  // Writers, relay and consumer share this one process: its CPU and event-loop delay are part of the latency.
  const LOOP_TICK_MS = 10;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_TICK_MS });
  loopDelay.enable();
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  const endsAt = startedAt + SECONDS * 1000;
  let claimed = 0;
  let written = 0;
  const writerLoop = async (w: number) => {
    const sequences = new Map<string, number>();
    let k = 0;
    while (performance.now() < endsAt) {
      const due = Math.floor(((performance.now() - startedAt) / 1000) * RATE) - claimed;
      if (due <= 0) {
        await sleep(2);
        continue;
      }
      const n = Math.min(PER_TX, due);
      claimed += n;
      const envelopes: EventEnvelope[] = [];
      for (let i = 0; i < n; i += 1) {
        const aggregateId = `agg_${w}_${k++ % 50}`;
        const sequence = (sequences.get(aggregateId) ?? 0) + 1;
        sequences.set(aggregateId, sequence);
        envelopes.push(
          newEnvelope({
            type: EVENT_TYPE,
            aggregate_id: aggregateId,
            aggregate_type: 'thing',
            sequence,
            merchant_id: 'mer_bench',
            environment: 'test',
            correlation_id: `req_${w}_${k}`,
            data: { n: sequence },
          }),
        );
      }
      await writerDb.transaction((manager) => writer.append(manager, topic, envelopes));
      const now = Date.now();
      for (const envelope of envelopes) {
        committedAt.set(envelope.id, now);
        record(envelope.id);
      }
      written += n;
    }
  };

  const backlog = async () =>
    ((await writerDb.query('SELECT count(*)::int AS n FROM bench_writer.outbox WHERE sent_at IS NULL')) as [{ n: number }])[0].n;
  const backlogSamples: number[] = [];
  const inFlightSamples: number[] = [];
  let lastWritten = 0;
  let lastConsumed = 0;
  let lastReportAt = startedAt;
  const report = async (label: string) => {
    const now = performance.now();
    const seconds = (now - lastReportAt) / 1000;
    const unsent = await backlog();
    backlogSamples.push(unsent);
    inFlightSamples.push(written - consumed);
    console.log(
      `${label.padEnd(7)} written ${((written - lastWritten) / seconds).toFixed(0).padStart(5)}/s  consumed ${((consumed - lastConsumed) / seconds)
        .toFixed(0)
        .padStart(5)}/s  outbox backlog ${String(unsent).padStart(5)}  in flight ${String(written - consumed).padStart(5)}  ${summary(windowLatencies)}`,
    );
    windowLatencies = [];
    lastWritten = written;
    lastConsumed = consumed;
    lastReportAt = now;
  };

  const settings = {
    concurrency: CONCURRENCY,
    batch: BATCH,
    maxWaitMs: MAX_WAIT_MS,
    relayBatch: RELAY_BATCH,
    relayPollMs: RELAY_POLL_MS,
  };
  // Load average, and on Linux the share of the last 10 s in which something waited for a CPU.
  const cpuPressure = () => {
    try {
      return `, cpu pressure ${/avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? '?'}% (10 s)`;
    } catch (error) {
      const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
      return missing ? '' : `, cpu pressure unreadable (${String(error)})`;
    }
  };
  const load = () => `${loadavg().map((n) => n.toFixed(2)).join(' ')} (1, 5, 15 min)${cpuPressure()}`;
  console.log(
    `outbox latency: ${RATE} events/s for ${SECONDS} s, ${PER_TX} events/transaction, ${WRITERS} writers, ` +
      `${PARTITIONS} partitions, topic ${topic}; settings ${JSON.stringify(settings)} (absent = default); load average ${load()}`,
  );
  const ticker = setInterval(() => {
    const elapsed = Math.round((performance.now() - startedAt) / 1000);
    void report(`${elapsed}s`).catch((error: unknown) => console.error('report failed', error));
  }, REPORT_EVERY_MS);
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writerLoop(w)));
  clearInterval(ticker);
  const writeSeconds = (performance.now() - startedAt) / 1000;
  const backlogAtEnd = await backlog();

  // Drain: everything written must arrive.
  const drainStart = performance.now();
  while (consumed < written) {
    if (performance.now() - drainStart > 120_000) throw new Error(`only ${consumed} of ${written} events consumed`);
    await sleep(20);
  }
  const drainMs = performance.now() - drainStart;
  await report('drained');

  const totalSeconds = (performance.now() - startedAt) / 1000;
  const [effects] = (await readerDb.query('SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS d FROM bench_reader.effects')) as [
    { n: number; d: number },
  ];
  console.log('');
  console.log(`events         ${written} written in ${writeSeconds.toFixed(1)} s = ${(written / writeSeconds).toFixed(0)}/s (target ${RATE}/s)`);
  console.log(`consumed       ${consumed} (effect rows ${effects.n}, distinct ${effects.d}), end to end ${(consumed / totalSeconds).toFixed(0)}/s`);
  console.log(`latency        ${summary(allLatencies)}  (commit -> consumer handler, ${allLatencies.length} events)`);
  console.log(`  applied      ${summary(appliedLatencies)}  (commit -> consumer transaction committed)`);
  console.log(`  relay leg    ${summary(relayLeg)}  (commit -> relay sent it to Kafka)`);
  console.log(`outbox backlog every 5 s: ${backlogSamples.slice(0, -1).join(', ')}; at end of writing ${backlogAtEnd}; drained ${drainMs.toFixed(0)} ms after`);
  // Growing = the second half of the 5 s samples (the drained one left out) averages well above the first half.
  const trend = (samples: number[]) => {
    const during = samples.slice(0, -1);
    const half = Math.floor(during.length / 2);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    return mean(during.slice(half)) > 2 * mean(during.slice(0, half)) + 100 ? 'GROWING' : 'steady (not growing)';
  };
  console.log(`outbox backlog trend            ${trend(backlogSamples)}  (relay keeping up with the writers)`);
  console.log(
    `consumer lag (in flight) trend  ${trend(inFlightSamples)}  (samples ${inFlightSamples.slice(0, -1).join(', ')})`,
  );
  console.log(`relay          ${JSON.stringify(relay.stats())}`);
  const stats = consumer.stats();
  console.log(`consumer       ${JSON.stringify(stats)}, ${(stats.handled / Math.max(1, stats.transactions)).toFixed(1)} events/transaction`);
  const cpu = process.cpuUsage(cpuAtStart);
  // The histogram holds whole tick intervals; what is beyond the tick is how late the loop was.
  const late = (ns: number) => Math.max(0, ns / 1e6 - LOOP_TICK_MS).toFixed(1);
  console.log(
    `this process   ${((cpu.user + cpu.system) / 1000 / (totalSeconds * 1000) * 100).toFixed(0)}% of one core; event loop late ` +
      `p50 ${late(loopDelay.percentile(50))} ms  p99 ${late(loopDelay.percentile(99))} ms  max ${late(loopDelay.max)} ms`,
  );
  console.log(`load average   ${load()} at the end`);

  await consumer.stop();
  await relay.stop();
  await producer.disconnect();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
