// The disk's flush latency beside a phase, printed next to its tail: a create is acknowledged once its commit is on
// disk, and on this VM kind a flush sometimes takes 100–1,000 ms (performance.md, "Where the half-peak create tail
// comes from"), which every request in flight then waits for. An 8 KiB write and fdatasync every 50 ms, on the
// filesystem of the temporary directory (the database's too on a one-disk machine), in libuv's thread pool so the
// load generator's loop never waits for it. Sparse enough not to be the load it measures (20 flushes a second).
import { open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INTERVAL_MS = 50;
const BLOCK = Buffer.alloc(8192, 1);

export interface FlushFigures {
  flushes: number;
  p99: number;
  max: number;
}

/** Starts probing; `stop` ends it and answers the figures (ms). */
export async function startFlushProbe(dir = tmpdir()): Promise<{ stop: () => Promise<FlushFigures> }> {
  const path = join(dir, `flush-probe-${process.pid}-${Date.now()}.dat`);
  const file = await open(path, 'w');
  const took: number[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const started = performance.now();
      await file.write(BLOCK, 0, BLOCK.length, (n % 128) * BLOCK.length);
      await file.datasync();
      took.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await file.close();
      await unlink(path).catch(() => undefined);
      took.sort((a, b) => a - b);
      const at = (q: number) => (took.length === 0 ? 0 : Math.round(took[Math.min(took.length - 1, Math.floor(q * took.length))]!));
      return { flushes: took.length, p99: at(0.99), max: at(1) };
    },
  };
}

export const flushSummary = (f: FlushFigures) =>
  `the disk meanwhile (8 KiB write + fdatasync every ${INTERVAL_MS} ms): ${f.flushes} flushes, p99 ${f.p99} ms, max ${f.max} ms`;
