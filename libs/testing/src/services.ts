import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

export type AppName = 'gateway' | 'sessions' | 'ledger' | 'refunds' | 'webhook-dispatcher' | 'chain-watcher';

/** Entry points that are not `dist/apps/<app>/src/main.js`: the chain watcher is a second process of sessions. */
const ENTRY_POINTS: Partial<Record<AppName, string>> = { 'chain-watcher': join('apps', 'sessions', 'src', 'chain-watcher', 'main.js') };

/** The gateway setting that lists each command-serving app's instances. */
export const COMMAND_URL_SETTINGS: Partial<Record<AppName, string>> = {
  sessions: 'SESSIONS_URL',
  ledger: 'LEDGER_URL',
  refunds: 'REFUNDS_URL',
  'webhook-dispatcher': 'WEBHOOKS_URL',
};

export interface RunningService {
  app: AppName;
  url: string;
  /** Base URL of its internal command port (apps that own commands). */
  commandUrl?: string;
  /** Base URL of its operations port: /metrics, /health/ready with details, diagnostics. */
  opsUrl: string;
  /** The environment it was started with (ports included): a restart reuses it. */
  env: Record<string, string>;
  process: ChildProcess;
  /** Everything the process wrote so far (JSON log lines and stderr). */
  output(): string;
  /** SIGTERM and wait for the exit (graceful shutdown). */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies where it is. */
  kill(): Promise<void>;
}

/** Runs a built service (`dist/`) as its own process, as an operator would, and waits until it is ready. */
export async function startService(
  app: AppName,
  env: Record<string, string>,
  options: { readyTimeoutMs?: number; waitReady?: boolean } = {},
): Promise<RunningService> {
  const entry = join(REPO_ROOT, 'dist', ENTRY_POINTS[app] ?? join('apps', app, 'src', 'main.js'));
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  // Every command-serving app gets its own command port unless the caller chose one.
  if (COMMAND_URL_SETTINGS[app] && env.COMMAND_PORT === undefined) env = { ...env, COMMAND_PORT: String(await freePort()) };
  if (env.OPS_PORT === undefined) env = { ...env, OPS_PORT: String(await freePort()) };
  // A gateway (or refunds) not told where a service is must not reach a development stack on the default ports: port 1 refuses.
  if (app === 'gateway') env = { ...Object.fromEntries(Object.values(COMMAND_URL_SETTINGS).map((s) => [s, 'tcp://127.0.0.1:1'])), ...env };
  if (app === 'refunds') env = { SESSIONS_URL: 'tcp://127.0.0.1:1', ...env };
  if (app === 'sessions') env = { LEDGER_URL: 'tcp://127.0.0.1:1', ...env };
  // SERVICE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the services of a benchmark run.
  const nodeArgs = (process.env.SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--enable-source-maps', entry], {
    cwd: REPO_ROOT,
    // KAFKA_BROKERS follows the test run's (e.g. a suite run against another broker version).
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', NODE_ENV: 'test', ...(process.env.KAFKA_BROKERS ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // SERVICE_OUTPUT_DIR keeps each service's output in a file of its own too (e.g. with SERVICE_NODE_ARGS=--trace-gc).
  if (process.env.SERVICE_OUTPUT_DIR) {
    const file = createWriteStream(join(process.env.SERVICE_OUTPUT_DIR, `${app}-${child.pid}.log`));
    child.stdout!.pipe(file, { end: false });
    child.stderr!.pipe(file, { end: false });
    child.once('close', () => file.end());
  }
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${env.PORT}`;
  const service: RunningService = {
    app,
    url,
    ...(env.COMMAND_PORT && COMMAND_URL_SETTINGS[app] ? { commandUrl: `tcp://127.0.0.1:${env.COMMAND_PORT}` } : {}),
    opsUrl: `http://127.0.0.1:${env.OPS_PORT}`,
    env,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  if (options.waitReady === false) return service;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${output.slice(-3000)}`);
    const ready = await fetch(`${url}/health/ready`).then((r) => r.ok, () => false);
    if (ready) return service;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await service.kill();
  throw new Error(`${app} was not ready within the timeout:\n${output.slice(-3000)}`);
}

/** Waits for a process started with waitReady: false to exit, and gives its code and output. */
export async function exitOf(service: RunningService, timeoutMs = 20000): Promise<{ code: number | null; output: string }> {
  const code = await Promise.race([
    new Promise<number | null>((resolve) => {
      if (service.process.exitCode !== null) resolve(service.process.exitCode);
      else service.process.once('exit', (c) => resolve(c));
    }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${service.app} did not exit`)), timeoutMs)),
  ]);
  return { code, output: service.output() };
}

/**
 * A port nothing listens on right now, below the kernel's ephemeral range (32768 and up here): the OS hands out
 * ports from that range for every outgoing connection too (Kafka, Postgres, HTTP clients of parallel tests), so a
 * port picked there could be taken by one before the service binds it (EADDRINUSE, seen in CI). Random in
 * 20000..32767, checked by binding it. Between the check and the service's own bind the port is free for anyone,
 * so no port is handed out twice by one process, and each jest worker picks from its own slice of the range (two
 * services started together once drew the same port, EADDRINUSE again).
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID);
  const slices = Number.isInteger(worker) && worker > 0 ? PORT_SLICES : 1;
  const size = Math.floor(PORT_SPAN / slices);
  const base = PORT_BASE + (slices === 1 ? 0 : ((worker - 1) % slices) * size);
  for (let tries = 0; tries < 100; tries++) {
    const port = base + Math.floor(Math.random() * size);
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${base}..${base + size - 1}`);
}

const PORT_BASE = 20000;
const PORT_SPAN = 12768;
/** Jest runs a few workers at most on this machine's two cores; each gets its own part of the range. */
const PORT_SLICES = 4;
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
