// CPU time per process group over a benchmark phase, from /proc (Linux): where a request's CPU goes when every
// process shares the same cores. Groups: the services started by the stack (by pid), Postgres, the Kafka broker,
// Redis, the local chain's node (anvil) and this process (the load generator).
import { readdirSync, readFileSync } from 'node:fs';

export const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export type CpuSnapshot = Map<string, number>;

function processTicks(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return undefined;
  }
}

function groupOf(pid: string, services: Map<number, string>): string | undefined {
  const service = services.get(Number(pid));
  if (service) return service;
  if (Number(pid) === process.pid) return 'load generator';
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
  if (cmdline.startsWith('postgres')) return 'postgres';
  if (cmdline.includes('kafka.Kafka')) return 'broker';
  if (cmdline.startsWith('redis-server')) return 'redis';
  if (cmdline.includes('/bin/anvil')) return 'chain node';
  return undefined;
}

/** Ticks per group now; `services` maps a service's pid to its name. */
export function cpuSnapshot(services: Map<number, string>): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const group = groupOf(pid, services);
    if (group === undefined) continue;
    const ticks = processTicks(pid);
    if (ticks !== undefined) snapshot.set(`${group}\t${pid}`, ticks);
  }
  return snapshot;
}

/** "gateway 0.93 ms, sessions 0.70 ms, …; total 2.70 ms" of CPU per request between two snapshots. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): string {
  const byGroup = new Map<string, number>();
  for (const [key, ticks] of after) {
    const group = key.split('\t')[0];
    byGroup.set(group, (byGroup.get(group) ?? 0) + ticks - (before.get(key) ?? 0));
  }
  const ms = (ticks: number) => ((ticks * 1000) / TICKS_PER_SECOND / Math.max(requests, 1)).toFixed(2);
  const total = [...byGroup.values()].reduce((a, b) => a + b, 0);
  const parts = [...byGroup].sort((a, b) => b[1] - a[1]).map(([group, ticks]) => `${group} ${ms(ticks)}`);
  return `${parts.join(', ')}; total ${ms(total)} ms`;
}

/** CPU ms per request of every group but the load generator: what serving one request costs the machine. */
export function serverCpuMsPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): number {
  let ticks = 0;
  for (const [key, value] of after) if (key.split('\t')[0] !== 'load generator') ticks += value - (before.get(key) ?? 0);
  return (ticks * 1000) / TICKS_PER_SECOND / Math.max(requests, 1);
}

/** Ticks of every group but the load generator between two snapshots. */
export function serverTicks(before: CpuSnapshot, after: CpuSnapshot): number {
  let ticks = 0;
  for (const [key, value] of after) if (key.split('\t')[0] !== 'load generator') ticks += value - (before.get(key) ?? 0);
  return ticks;
}

/** Cores the services, Postgres, the broker and Redis use over `ms` while nothing is offered; and by group. */
export async function idleCores(services: Map<number, string>, ms: number): Promise<{ total: number; byGroup: string }> {
  const before = cpuSnapshot(services);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuSnapshot(services);
  const seconds = (performance.now() - started) / 1000;
  const byGroup = new Map<string, number>();
  for (const [key, ticks] of after) {
    const group = key.split('\t')[0]!;
    if (group !== 'load generator') byGroup.set(group, (byGroup.get(group) ?? 0) + ticks - (before.get(key) ?? 0));
  }
  const cores = (ticks: number) => ticks / TICKS_PER_SECOND / seconds;
  const parts = [...byGroup].sort((a, b) => b[1] - a[1]).map(([group, ticks]) => `${group} ${cores(ticks).toFixed(3)}`);
  return { total: cores(serverTicks(before, after)), byGroup: parts.join(', ') };
}
