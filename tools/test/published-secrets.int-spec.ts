// A key written in the repository is public. Every WEBHOOK_SECRETS_KEY value in the deployment files must be
// refused when NODE_ENV=production (the compose file's and the dev overlay's were accepted before).
import { ConfigError, loadConfig, ServiceConfig } from '@payments/config';
import { WebhookServiceConfig } from '@payments/webhooks';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** `WEBHOOK_SECRETS_KEY: <v>`, `WEBHOOK_SECRETS_KEY=<v>` and `${WEBHOOK_SECRETS_KEY:-<v>}` in tracked files. */
function keysInRepository(): Array<[key: string, file: string]> {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ya?ml|env|sh|properties|json)$|(^|\/)\.env/.test(f) && !f.includes('package-lock'));
  const found: Array<[string, string]> = [];
  const pattern = /WEBHOOK_SECRETS_KEY(?::-|\s*[:=]\s*)["']?([A-Za-z0-9+/_-]{40,}={0,2})/g;
  for (const file of files) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(pattern)) found.push([match[1]!, file]);
  }
  return found;
}

describe('webhook secrets keys written in the repository', () => {
  const keys = keysInRepository();

  it('are found (the compose file and the dev overlay carry one)', () => {
    expect(keys.map(([, file]) => file)).toEqual(expect.arrayContaining(['docker-compose.yml', 'k8s/overlays/dev/kustomization.yaml']));
  });

  it('are each refused when NODE_ENV=production, and accepted otherwise', () => {
    for (const [key] of keys) {
      expect(() => loadConfig(WebhookServiceConfig, { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: key, COMMAND_SECRET: 'c'.repeat(40) })).toThrow(ConfigError);
      expect(loadConfig(WebhookServiceConfig, { NODE_ENV: 'development', WEBHOOK_SECRETS_KEY: key }).WEBHOOK_SECRETS_KEY).toBe(key);
    }
  });

  it("do not stop a production key of the operator's own", () => {
    const own = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig(WebhookServiceConfig, { NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: own, COMMAND_SECRET: 'c'.repeat(40) }).WEBHOOK_SECRETS_KEY).toBe(own);
  });
});

/** `COMMAND_SECRET: <v>`, `COMMAND_SECRET=<v>` and `${COMMAND_SECRET:-<v>}` in tracked files (placeholders aside). */
function commandSecretsInRepository(): Array<[secret: string, file: string]> {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ya?ml|env|sh|properties|json)$|(^|\/)\.env/.test(f) && !f.includes('package-lock'));
  const found: Array<[string, string]> = [];
  const pattern = /COMMAND_SECRET(?::-|\s*[:=]\s*)["']?([^\s"'{}$()]{8,})/g;
  for (const file of files) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(pattern)) if (!match[1]!.startsWith('REPLACE_ME')) found.push([match[1]!, file]);
  }
  return found;
}

describe('command secrets written in the repository', () => {
  const secrets = commandSecretsInRepository();

  it('are found (the dev overlay carries one)', () => {
    expect(secrets.map(([, file]) => file)).toEqual(expect.arrayContaining(['k8s/overlays/dev/kustomization.yaml']));
  });

  it('are each refused when NODE_ENV=production, and accepted otherwise', () => {
    for (const [secret] of secrets) {
      expect(() => loadConfig(ServiceConfig, { NODE_ENV: 'production', COMMAND_SECRET: secret })).toThrow(ConfigError);
      expect(loadConfig(ServiceConfig, { NODE_ENV: 'development', COMMAND_SECRET: secret }).COMMAND_SECRET).toBe(secret);
    }
  });
});
