import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The type test: test/types/usage.ts compiles with tsc (so each `@ts-expect-error` line does fail to compile, or
// tsc reports the directive as unused), and without the directives the errors are the ones meant: an unknown
// field ("did you mean description?") and a number where a MoneyString goes, on those lines.
const TSC = require.resolve('typescript/bin/tsc');
const DIR = join(__dirname, 'types');

function tsc(project: string): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { encoding: 'utf8' }) };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

describe('client types', () => {
  it('compile correct calls and refuse a misspelt field or a wrong money type', () => {
    const result = tsc(join(DIR, 'tsconfig.json'));
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  }, 60_000);

  it('refuse them for the reasons meant', () => {
    const dir = mkdtempSync(join(DIR, '.tmp-'));
    try {
      const source = readFileSync(join(DIR, 'usage.ts'), 'utf8').replace(/\/\/ @ts-expect-error .*\n/g, '// (expected error)\n')
        .replace("from '../../src'", "from '../../../src'");
      writeFileSync(join(dir, 'usage.ts'), source);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../../../../tsconfig.base.json', compilerOptions: { noEmit: true, types: ['node'] }, files: ['usage.ts'] }));
      const result = tsc(join(dir, 'tsconfig.json'));
      expect(result.ok).toBe(false);
      const lines = source.split('\n');
      const errors = result.output
        .trim()
        .split('\n')
        .filter((l) => /error TS\d+/.test(l))
        .map((l) => {
          const [, line, code] = /usage\.ts\((\d+),\d+\): error (TS\d+)/.exec(l)!;
          return { after: lines[Number(line) - 2]!.trim(), code };
        });
      expect(errors.every((e) => e.after === '// (expected error)')).toBe(true);
      expect(errors.map((e) => e.code)).toEqual(['TS2561', 'TS2322', 'TS2322', 'TS2322', 'TS2322']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
