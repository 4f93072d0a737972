// The idle stack by process (`BENCH=idle npm run bench`): the whole system as `npm start` runs it (bench-support's
// startWholeSystem, the chain watcher and the local chain's node included), left alone after start-up, its CPU
// sampled several times by process group from /proc. Goal (issue 40): ≤ 0.05 cores. A broker freshly started is
// still compiling its hot code for a few minutes, so the samples fall at first: read the later ones.
// Usage: node -r ./tools/swc-register.js bench/idle.ts [--samples 3] [--seconds 30] [--warm 30]
import { createTestDatabase, uniqueName, type RunningService } from '@payments/testing';
import { bareHttp, numberArg, servicePids, startWholeSystem, stopSystem, wholeSystemLabel } from './bench-support';
import { idleCores } from './cpu';

async function main(): Promise<void> {
  const samples = numberArg('samples', 3);
  const seconds = numberArg('seconds', 30);
  const warm = numberArg('warm', 30);
  const db = await createTestDatabase('bench_idle');
  const namespace = uniqueName('idle');
  const services: RunningService[] = [];
  try {
    const { origin } = await startWholeSystem({ DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace }, services);
    console.log(`idle: ${wholeSystemLabel()}; bare HTTP on this VM ${await bareHttp(origin)} req/s`);
    const pids = servicePids(services);
    await new Promise((resolve) => setTimeout(resolve, warm * 1000));
    for (let i = 1; i <= samples; i++) {
      const cores = await idleCores(pids, seconds * 1000);
      console.log(`idle stack, sample ${i} of ${samples} (${seconds} s): ${cores.total.toFixed(3)} cores (${cores.byGroup}) — goal ≤ 0.05: ${cores.total <= 0.05 ? 'met' : 'not met'}`);
    }
  } finally {
    await stopSystem(services, db, namespace);
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
