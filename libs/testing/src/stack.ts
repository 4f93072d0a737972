import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { deleteNamespaceTopics } from './kafka';
import { createTestDatabase, TestDatabase, uniqueName } from './postgres';
import { AppName, COMMAND_URL_SETTINGS, freePort, REPO_ROOT, RunningService, startService } from './services';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestMerchant {
  merchant_id: string;
  test_key: string;
  live_key?: string;
}

export interface Stack {
  db: TestDatabase;
  namespace: string;
  services: Partial<Record<AppName, RunningService>>;
  gatewayUrl: string;
  /** The built admin CLI as operators run it; resolves its --json output. */
  admin(...args: string[]): Promise<any>;
  createMerchant(options?: { verified?: boolean; testLimit?: number; liveLimit?: number }): Promise<TestMerchant>;
  /** One HTTP call to the gateway with a key; JSON in, JSON (or text) out. */
  call<T = any>(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

/**
 * The system as merchants meet it: a fresh database and Kafka namespace, the given services run from dist/
 * as processes, the gateway in front. Services start in order (gateway last, once the others subscribe). `appEnv`
 * adds settings of one service only.
 */
export async function startStack(apps: AppName[], env: Record<string, string> = {}, appEnv: Partial<Record<AppName, Record<string, string>>> = {}): Promise<Stack> {
  const db = await createTestDatabase('stack');
  const namespace = uniqueName('ns');
  const services: Partial<Record<AppName, RunningService>> = {};
  const common = { DATABASE_URL: db.url, KAFKA_NAMESPACE: namespace, ...env };
  // The ledger first (sessions sends it wallet payments), the gateway last.
  const ordered = [...apps.filter((a) => a === 'ledger'), ...apps.filter((a) => a !== 'gateway' && a !== 'ledger'), ...apps.filter((a) => a === 'gateway')];
  try {
    for (const app of ordered) {
      // The gateway sends commands to the instances started before it (unless the caller says where).
      // The refunds service asks sessions for payments whose event has not reached it; sessions posts wallet payments to the ledger.
      const commandUrls =
        app === 'gateway'
          ? commandUrlSettings(services)
          : app === 'refunds' && services.sessions?.commandUrl
            ? { SESSIONS_URL: services.sessions.commandUrl }
            : app === 'sessions' && services.ledger?.commandUrl
              ? { LEDGER_URL: services.ledger.commandUrl }
              : {};
      services[app] = await startService(app, { ...commandUrls, ...common, ...appEnv[app], PORT: appEnv[app]?.PORT ?? String(await freePort()) });
    }
  } catch (error) {
    await Promise.all(Object.values(services).map((s) => s!.stop()));
    await db.drop();
    throw error;
  }
  const gatewayUrl = services.gateway?.url ?? '';

  // `npm run admin` as operators run it (ledger commands to the ledger's CLI); commands that reach the ledger (a
  // wallet credit) are sent to the stack's ledger as it is now (a test may have restarted it on another port).
  const admin = (...args: string[]) =>
    new Promise<any>((resolve, reject) => {
      const cli = join(REPO_ROOT, 'tools', 'admin.mjs');
      const ledgerUrl = services.ledger?.commandUrl ? { LEDGER_URL: services.ledger.commandUrl } : {};
      execFile(process.execPath, [cli, ...args, '--json'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'warn', ...ledgerUrl } }, (error, stdout, stderr) => {
        if (error) reject(new Error(`admin ${args.join(' ')} failed: ${stderr} ${stdout}`));
        else resolve(stdout.trim() ? JSON.parse(stdout) : {});
      });
    });

  return {
    db,
    namespace,
    services,
    gatewayUrl,
    admin,
    async createMerchant(options = {}) {
      const name = uniqueName('shop');
      const merchant: TestMerchant = await admin('merchant', 'create', '--name', name, '--email', `${name}@example.com`, ...(options.verified ? ['--verified'] : []));
      if (options.testLimit || options.liveLimit) {
        await admin('merchant', 'limits', '--id', merchant.merchant_id, '--test', String(options.testLimit ?? 'default'), '--live', String(options.liveLimit ?? 'default'));
      }
      return merchant;
    },
    call: (method, path, options) => callGateway(gatewayUrl, method, path, options),
    async stop() {
      const gateway = services.gateway;
      if (gateway) await gateway.stop();
      await Promise.all(Object.entries(services).filter(([app]) => app !== 'gateway').map(([, s]) => s!.stop()));
      await db.drop();
      await deleteNamespaceTopics(namespace);
    },
  };
}

/** One HTTP call to the gateway at `gatewayUrl` with a key; JSON in, JSON (or text) out. */
export async function callGateway<T = any>(
  gatewayUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text; // not JSON: the caller sees the raw text
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

/** The gateway's *_URL settings pointing at the command ports of the given running services. */
export function commandUrlSettings(services: Partial<Record<AppName, RunningService>>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const service of Object.values(services)) {
    const setting = service && COMMAND_URL_SETTINGS[service.app];
    if (setting && service.commandUrl) settings[setting] = service.commandUrl;
  }
  return settings;
}
