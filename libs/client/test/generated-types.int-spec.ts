import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from '@payments/testing';

// The checked-in generated types are what openapi-typescript makes of the document a running gateway serves: a
// route or DTO changed without a build (which rewrites the file) fails here.
const SCRIPT = join(__dirname, '..', 'scripts', 'generate-types.js');
const GENERATED = join(__dirname, '..', 'src', 'generated', 'openapi.ts');

describe('generated client types', () => {
  let stack: Stack;
  const dir = mkdtempSync(join(tmpdir(), 'client-types-'));

  beforeAll(async () => {
    stack = await startStack(['gateway']);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('match the OpenAPI document the gateway serves', async () => {
    const document = (await stack.call('GET', '/openapi.json')).body;
    expect(document.openapi).toBe('3.1.0');
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    // openapi-typescript is an ES module (jest's module system does not load it): it runs in its own process.
    const fromServed = execFileSync(process.execPath, [SCRIPT, '--from', join(dir, 'openapi.json')], { encoding: 'utf8' });
    expect(fromServed).toContain('"/api/v1/payment-intents"');
    expect(readFileSync(GENERATED, 'utf8')).toBe(fromServed);
  });
});
