// What the benchmarks share: numeric options, the admin CLI as operators run it, and a closed-loop autocannon run.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { deleteNamespaceTopics, freePort, REPO_ROOT, startService, type AppName, type RunningService, type TestDatabase } from '@payments/testing';

/** `--name N` from the command line, or the fallback. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** `npm run admin -- ...` against a database; resolves its --json output. An object among the words adds settings (e.g. LEDGER_URL). */
export function admin(databaseUrl: string, ...args: Array<string | Record<string, string>>): Promise<any> {
  const env = Object.assign({}, ...args.filter((a): a is Record<string, string> => typeof a !== 'string')) as Record<string, string>;
  const words = args.filter((a): a is string => typeof a === 'string');
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [join(REPO_ROOT, 'tools/admin.mjs'), ...words, '--json'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env } }, (error, stdout, stderr) =>
      stdout.trim() ? resolve(JSON.parse(stdout)) : reject(new Error(`${error?.message} ${stderr}`)),
    ),
  );
}

export function load(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/** Instances of each owner of commands and events, as `npm start` runs them (its REPLICAS, default 2). */
export const START_REPLICAS = Number(process.env.REPLICAS ?? 2);

/**
 * A bench's end: its services stopped, its database dropped and its namespace's topics deleted, so that a later
 * phase of `npm run bench` measures a broker without them (each topic adds the broker's metric ticks).
 */
export async function stopSystem(services: readonly RunningService[], db: TestDatabase, namespace: string): Promise<void> {
  await Promise.all(services.map((s) => s.stop().catch(() => undefined)));
  await db.drop();
  await deleteNamespaceTopics(namespace).catch(() => undefined);
}

/** The services startWholeSystem started, by app: each owner's instances in start order, the one gateway. */
export interface WholeSystem {
  /** The gateway's base URL (its PUBLIC_BASE_URL). */
  origin: string;
  gateway: RunningService;
  /** The first instance of the ledger and of sessions. */
  ledger: RunningService;
  sessions: RunningService;
  groups: { ledger: RunningService[]; sessions: RunningService[]; refunds: RunningService[]; 'webhook-dispatcher': RunningService[] };
}

/**
 * All five services as `npm start` runs them: `replicas` instances of each owner (sessions, ledger, refunds, the
 * dispatcher; default as `npm start`, 2), one gateway sending commands to all of them, each told where its owners'
 * commands go: the ledgers first (sessions sends them wallet payments), the gateway last at `origin` (its
 * PUBLIC_BASE_URL, so its forms' origin checks pass), with the settings `npm start` gives (loopback command ports,
 * local webhook targets allowed, the services' default log level, info). `common` goes to every service, `perApp`
 * to one app's instances only (e.g. a stand-in provider's address). Every service started is pushed onto
 * `services`, for the caller to stop.
 */
export async function startWholeSystem(
  common: Record<string, string>,
  services: RunningService[],
  replicas = START_REPLICAS,
  callerPerApp: Partial<Record<AppName, Record<string, string>>> = {},
): Promise<WholeSystem> {
  // BENCH_SERVICE_ENV (JSON, app → settings) lets a run compare a setting, e.g. '{"ledger":{"PROCESS_NICE":"0"}}'.
  const fromEnv = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}') as Partial<Record<AppName, Record<string, string>>>;
  const perApp = Object.fromEntries(
    [...new Set([...Object.keys(fromEnv), ...Object.keys(callerPerApp)])].map((app) => [app, { ...fromEnv[app as AppName], ...callerPerApp[app as AppName] }]),
  ) as Partial<Record<AppName, Record<string, string>>>;
  // LOG_LEVEL explicitly: startService's own default is warn (quiet tests), not the services' default.
  const chain = common.CRYPTO_CHAINS === undefined ? await localChainSettings() : {};
  const settings: Record<string, string> = { COMMAND_HOST: '127.0.0.1', WEBHOOK_ALLOW_INSECURE_TARGETS: '1', NODE_ENV: 'development', LOG_LEVEL: 'info', ...chain, ...common };
  const start = async (app: Exclude<AppName, 'gateway'>, env: Record<string, string> = {}) => {
    const group: RunningService[] = [];
    for (let i = 0; i < replicas; i++) {
      const service = await startService(app, { ...settings, ...env, ...perApp[app], PORT: String(await freePort()) });
      services.push(service);
      group.push(service);
    }
    return group;
  };
  const urls = (group: RunningService[]) => group.map((s) => s.commandUrl!).join(',');
  const ledgers = await start('ledger');
  const sessions = await start('sessions', { LEDGER_URL: urls(ledgers) });
  const refunds = await start('refunds', { SESSIONS_URL: urls(sessions) });
  const dispatchers = await start('webhook-dispatcher');
  // The chain watcher when crypto has chains to watch, one instance, as npm start runs it.
  if (settings.CRYPTO_CHAINS) services.push(await startService('chain-watcher', { ...settings, ...perApp['chain-watcher'], PORT: String(await freePort()) }));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const gateway = await startService('gateway', {
    ...settings,
    SESSIONS_URL: urls(sessions),
    LEDGER_URL: urls(ledgers),
    REFUNDS_URL: urls(refunds),
    WEBHOOKS_URL: urls(dispatchers),
    ...perApp.gateway,
    PORT: String(port),
    PUBLIC_BASE_URL: origin,
  });
  services.push(gateway);
  return { origin, gateway, ledger: ledgers[0]!, sessions: sessions[0]!, groups: { ledger: ledgers, sessions, refunds, 'webhook-dispatcher': dispatchers } };
}

/**
 * The crypto settings `npm start` gives the services, so that the whole system includes the chain watcher as it runs
 * there: those in the environment (a real chain's node), else the local chain's (scripts/chain.sh starts anvil, a
 * block a second, when it is not running, and writes them).
 */
export async function localChainSettings(): Promise<Record<string, string>> {
  const names = ['CRYPTO_CHAINS', 'CRYPTO_XPUB_TEST', 'CRYPTO_XPUB_LIVE'];
  if (process.env.CRYPTO_CHAINS !== undefined) return Object.fromEntries(names.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));
  await promisify(execFile)('bash', [join(REPO_ROOT, 'scripts/chain.sh'), 'start']);
  const lines = readFileSync(join(REPO_ROOT, '.cache/chain/crypto.env'), 'utf8').split('\n');
  const settings: Record<string, string> = {};
  for (const line of lines) {
    const match = /^([A-Z_]+)=(?:'(.*)'|(.*))$/.exec(line.trim());
    if (match && names.includes(match[1]!)) settings[match[1]!] = match[2] ?? match[3]!;
  }
  return settings;
}

/** How the benches name the whole system in their output. */
export function wholeSystemLabel(replicas = START_REPLICAS): string {
  return `whole system as npm start runs it: all five services, ${replicas} instance(s) of each owner, one gateway, the chain watcher, info logging`;
}

/** `--services NAME` from the command line: a named part of the system instead of the whole (undefined: the whole). */
export function servicesArg(): string | undefined {
  const i = process.argv.indexOf('--services');
  const value = i > 0 ? process.argv[i + 1] : undefined;
  return value === undefined || value === 'all' ? undefined : value;
}

/** Every service process, pid → app name (instances of one app are one group): what bench/cpu.ts measures. */
export function servicePids(services: Iterable<RunningService | undefined>): Map<number, string> {
  return new Map([...services].filter((s): s is RunningService => s !== undefined).map((s) => [s.process.pid!, s.app]));
}

/** This VM's bare HTTP figure: autocannon GET /health/live on a gateway, 32 connections, 3 s (req/s). */
export async function bareHttp(gatewayUrl: string): Promise<number> {
  return Math.round((await load({ url: `${gatewayUrl}/health/live`, connections: 32, duration: 3 })).requests.average);
}
