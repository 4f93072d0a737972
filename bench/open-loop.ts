// An open-loop load generator: requests leave at an even pace whatever the answers do, and each latency counts
// from the moment its request was due, so queueing shows (no coordinated omission). autocannon's overallRate is
// not this: each connection sends its whole per-second budget back to back at the start of every second, so a
// "half rate" run is a saturated burst followed by idle time.
import type { Result } from 'autocannon';
import { writeFileSync } from 'node:fs';
import { Pool } from 'undici';

export interface OpenLoopOptions {
  origin: string;
  rate: number;
  seconds: number;
  request: () => { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };
  /** Which answers count as done (default 2xx; a form post answers 303). */
  ok?: (status: number) => boolean;
  /** Connections the generator may open; requests beyond them queue in the generator (and that time counts). */
  connections?: number;
  /** Ends the load early (e.g. when the work it runs beside is done): no request leaves after it aborts. */
  signal?: AbortSignal;
  /**
   * Connections opened, and the generator's own request path run, before the clock starts: this many connections,
   * each sending a hundred GETs of `/health/live`. A client in steady state has its keep-alive pool open and its
   * code compiled; without this the first seconds measured the generator: each new connection costs the server an
   * accept and a parser, and a generator still running unoptimised code sends late, and every late request counts
   * from its due time (creates at 750/s: first second p50 33–61 ms cold, 13–19 ms warm).
   */
  preconnect?: number;
}

const TICK_MS = 2;
/** GETs per preconnected connection before the clock starts: enough for V8 to optimise the request path. */
const WARM_ROUNDS = 100;

/** Runs the load and answers the figures bench/api.ts prints, in autocannon's Result shape. */
export async function openLoop(options: OpenLoopOptions): Promise<Result> {
  const pool = new Pool(options.origin, { connections: options.connections ?? 256, pipelining: 1 });
  const warmConnections = options.preconnect ?? 0;
  for (let round = 0; warmConnections > 0 && round < WARM_ROUNDS; round++) {
    await Promise.all(Array.from({ length: warmConnections }, () => pool.request({ method: 'GET', path: '/health/live' }).then((res) => res.body.dump())));
  }
  const latencies: number[] = [];
  // OPEN_LOOP_TRACE=<prefix> writes each request's due time and latency (ms) to <prefix>.<rate>, to see where a tail
  // comes from (its first line holds the epoch milliseconds of time 0, to line it up with other records).
  const trace = process.env.OPEN_LOOP_TRACE ? ([] as string[]) : undefined;
  let non2xx = 0;
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const total = Math.round(options.rate * options.seconds);
  let sent = 0;
  while (sent < total && !options.signal?.aborted) {
    const elapsed = performance.now() - started;
    // Request n is due at n / rate seconds, so by `elapsed` requests 0..floor(elapsed × rate) are due. (Without the
    // + 1 each request left one interval after its due time and every latency counted that interval too.)
    const due = Math.min(total, Math.floor((elapsed / 1000) * options.rate) + 1);
    for (; sent < due; sent++) {
      const dueAt = started + (sent * 1000) / options.rate;
      const { method, path, headers, body } = options.request();
      const done = pool
        .request({ method, path, headers, body })
        .then(async (res) => {
          await res.body.dump();
          if (options.ok ? options.ok(res.statusCode) : res.statusCode >= 200 && res.statusCode < 300) {
            const latency = performance.now() - dueAt;
            latencies.push(latency);
            trace?.push(`${(dueAt - started).toFixed(1)} ${latency.toFixed(1)}`);
          } else non2xx++;
        })
        .catch(() => {
          errors++;
        })
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(inFlight);
  const duration = (performance.now() - started) / 1000;
  await pool.close();
  if (trace) writeFileSync(`${process.env.OPEN_LOOP_TRACE}.${options.rate}`, `# started ${Date.now() - duration * 1000}\n${trace.join('\n')}\n`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length === 0 ? 0 : Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!));
  return {
    requests: { average: sent / duration, total: sent },
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
    non2xx,
    errors,
  } as unknown as Result;
}
