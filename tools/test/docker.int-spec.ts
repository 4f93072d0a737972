// docker-compose.yml and the Dockerfile can't be run here (no Docker engine), so their contract is read.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = join(__dirname, '..', '..');
const services = ['gateway', 'sessions', 'ledger', 'refunds', 'webhook-dispatcher'];

interface ComposeService {
  image?: string;
  command?: string[];
  build?: { context?: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

describe('docker-compose.yml', () => {
  // The file uses merge keys (<<) for the settings the five services share.
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };

  test('names the five services, the chain watcher, kafka, postgres and redis', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...services, 'chain-watcher', 'kafka', 'postgres', 'redis'].sort());
  });

  test('infrastructure: Kafka in KRaft mode, PostgreSQL 15, Redis 7, each with a health check', () => {
    expect(compose.services.kafka.image).toBe('apache/kafka:3.9.1');
    expect(compose.services.kafka.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(compose.services.postgres.image).toMatch(/^postgres:15/);
    expect(compose.services.redis.image).toMatch(/^redis:7/);
    for (const name of ['kafka', 'postgres', 'redis']) expect(compose.services[name].healthcheck?.test).toBeDefined();
  });

  test.each(services)('%s: built from the Dockerfile for its app, waits for healthy infrastructure', (name) => {
    const service = compose.services[name];
    expect(service.build?.context).toBe('.');
    expect(service.build?.args?.APP).toBe(name);
    for (const dependency of ['kafka', 'postgres', 'redis']) {
      expect(service.depends_on?.[dependency]?.condition).toBe('service_healthy');
    }
    const env = service.environment ?? {};
    expect(env.KAFKA_BROKERS).toBe('kafka:9092');
    expect(env.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    expect(env.PORT).toMatch(/^\d+$/);
    expect(env.DB_SCHEMA).toMatch(/^[a-z_]+$/);
  });

  test('only the gateway is published, on 3000', () => {
    const published = Object.entries(compose.services).filter(([, s]) => s.ports?.length);
    expect(published.map(([name, s]) => [name, s.ports])).toEqual([['gateway', ['3000:3000']]]);
  });

  it('points the gateway at each command owner\'s internal command port', () => {
    const gateway = compose.services.gateway.environment ?? {};
    const owners: Array<[string, string]> = [['SESSIONS_URL', 'sessions'], ['LEDGER_URL', 'ledger'], ['REFUNDS_URL', 'refunds'], ['WEBHOOKS_URL', 'webhook-dispatcher']];
    for (const [setting, owner] of owners) {
      const port = compose.services[owner]!.environment?.COMMAND_PORT;
      expect(port).toMatch(/^\d+$/);
      expect(gateway[setting]).toBe(`tcp://${owner}:${port}`);
    }
  });

  test("chain watcher: the sessions image started on the watcher's entry, its own port, sessions' schema, infrastructure first", () => {
    const watcher = compose.services['chain-watcher']!;
    const sessions = compose.services.sessions!;
    expect(watcher.build).toEqual(sessions.build);
    expect(watcher.image).toBe(sessions.image);
    expect(watcher.command).toEqual(['node', 'dist/apps/sessions/src/chain-watcher/main.js']);
    expect(existsSync(join(root, 'apps/sessions/src/chain-watcher/main.ts'))).toBe(true);
    for (const dependency of ['kafka', 'postgres']) expect(watcher.depends_on?.[dependency]?.condition).toBe('service_healthy');
    const env = watcher.environment ?? {};
    expect(env.PORT).toBe('3005');
    expect(env.DB_SCHEMA).toBe(sessions.environment?.DB_SCHEMA);
    expect(env.COMMAND_PORT).toBeUndefined();
    expect(env.DATABASE_URL).toBe(sessions.environment?.DATABASE_URL);
    expect(env.KAFKA_BROKERS).toBe(sessions.environment?.KAFKA_BROKERS);
  });

  test.each(['sessions', 'chain-watcher'])('%s: the crypto settings from the shell, unset by default (no live crypto)', (name) => {
    const env = compose.services[name]!.environment ?? {};
    for (const setting of ['CRYPTO_CHAINS', 'CRYPTO_XPUB_TEST', 'CRYPTO_XPUB_LIVE']) expect(env[setting]).toBe(`\${${setting}:-}`);
  });

  it('points sessions at the ledger\'s command port (wallet payments and top-ups)', () => {
    expect(compose.services.sessions!.environment?.LEDGER_URL).toBe(`tcp://ledger:${compose.services.ledger!.environment?.COMMAND_PORT}`);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  test('final stage is node:20-slim, runs as a non-root user and checks /health/live', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-slim$/m);
    expect(runtime).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/m);
    const user = runtime.match(/^USER (\S+)$/m)?.[1] ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*\/health\/live/m);
  });

  test('the APP argument selects the service that starts', () => {
    expect(runtime).toMatch(/^ARG APP=/m);
    expect(runtime).toMatch(/APP=\$\{APP\}/);
    expect(runtime).toContain('dist/apps/$APP/src/main.js');
  });

  test('the health check asks the port of the process the container runs (PORT: 3005 for the chain watcher)', () => {
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*process\.env\.PORT/m);
  });

  test('production dependencies only in the final image', () => {
    expect(dockerfile).toMatch(/npm install --omit=dev/);
    expect(runtime).not.toMatch(/npm (ci|install)/);
  });
});

describe('Dockerfile: the install stages', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
  };

  // The production install (--omit=dev) runs the postinstall too: a patch of a dependency (patches/) that did not
  // reach the image would leave the services on the unpatched library.
  test('keep patches/ beside the manifests, and what applies them is a production dependency', () => {
    expect(pkg.scripts.postinstall).toMatch(/^patch-package\b/);
    expect(pkg.dependencies['patch-package']).toBeDefined();
    const manifests = /FROM \S+ AS manifests[\s\S]*?(?=\nFROM )/.exec(dockerfile)?.[0] ?? '';
    expect(manifests).toMatch(/! -path '\.\/patches\/\*'/);
  });
});
