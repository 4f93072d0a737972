// The lint configuration is part of the architecture: these tests lint small pieces of code as if they were
// files of the repository, so a rule that stops applying (a moved folder, a changed glob) fails here.
// ESLint runs as its own process (as `npm run lint` does): its config is an ES module, which jest cannot load.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

async function problems(file: string, code: string): Promise<LintMessage[]> {
  const run = promisify(execFile)(
    process.execPath,
    [join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', file, '--format', 'json'],
    { cwd: root },
  );
  run.child.stdin!.end(code);
  // Exit code 1 means problems were found: the JSON report is still on stdout.
  const stdout = await run.then(
    (r) => r.stdout,
    (error: { code?: number; stdout?: string }) => {
      if (error.code === 1 && error.stdout) return error.stdout;
      throw error;
    },
  );
  const [result] = JSON.parse(stdout) as Array<{ messages: LintMessage[] }>;
  return result!.messages;
}

const ruleIds = (messages: LintMessage[]) => messages.map((m) => m.ruleId);

// Nx's boundary rule reads the cached project graph (`npm run lint` writes it first); a fresh clone has none.
beforeAll(async () => {
  await promisify(execFile)(process.execPath, [join(root, 'node_modules/nx/bin/nx.js'), 'show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' } });
}, 120_000);

describe('lint: domain code stays free of frameworks', () => {
  it.each([
    ['an app domain file importing @nestjs/common', 'apps/sessions/src/domain/new-rule.ts', "import { Injectable } from '@nestjs/common';\n"],
    ['an app domain file importing typeorm', 'apps/ledger/src/domain/balance.ts', "import type { EntityManager } from 'typeorm';\n"],
    ['a domain lib importing kafkajs', 'libs/money/src/new-rule.ts', "import { Kafka } from 'kafkajs';\n"],
    ['a domain lib importing the platform lib', 'libs/events/src/new-rule.ts', "import { ApiError } from '@payments/platform';\n"],
  ])('refuses %s', async (_, file, code) => {
    expect(ruleIds(await problems(file, code))).toContain('no-restricted-imports');
  });

  it('allows the same import at the edge (a handler or module)', async () => {
    const messages = await problems('apps/sessions/src/payment-intents/new-rule.handlers.ts', "import { Injectable } from '@nestjs/common';\n");
    expect(ruleIds(messages)).not.toContain('no-restricted-imports');
  });

  it('allows a domain file to import other domain code', async () => {
    const messages = await problems('apps/sessions/src/domain/new-rule.ts', "import { parseMoney } from '@payments/money';\n");
    expect(messages).toEqual([]);
  });
});

describe('lint: module boundaries between projects', () => {
  it('refuses an app importing another app', async () => {
    const messages = await problems('apps/gateway/src/new-rule.ts', "import { SessionsModule } from '../../sessions/src/sessions.module';\n");
    expect(ruleIds(messages)).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses a domain lib importing an infrastructure lib', async () => {
    const messages = await problems('libs/money/src/new-rule.ts', "import { OutboxWriter } from '@payments/messaging';\n");
    expect(ruleIds(messages)).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses production code importing the testing lib', async () => {
    const messages = await problems('apps/gateway/src/new-rule.ts', "import { startStack } from '@payments/testing';\n");
    expect(ruleIds(messages)).toContain('@nx/enforce-module-boundaries');
  });
});
