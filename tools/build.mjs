// Compiles every app and lib to dist/ with swc (type checking is `npm run typecheck`).
// Path aliases (@payments/*) are rewritten to relative requires, so dist runs on plain node.
import { transformFile } from '@swc/core';
import { readdir, mkdir, writeFile, readFile, copyFile, rm, rename } from 'node:fs/promises';
import { join, dirname, relative, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const tsconfig = JSON.parse(await readFile(join(root, 'tsconfig.base.json'), 'utf8'));
const paths = tsconfig.compilerOptions.paths;

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(p);
    else yield p;
  }
}

async function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}

const isTest = (f) => /\.(spec|int-spec|e2e-spec)\.ts$/.test(f);
const jobs = [];
// --clean empties dist first; without it files are replaced atomically, so a running test's services never
// load a half-written file.
if (process.argv.includes('--clean')) await rm(out, { recursive: true, force: true });
for (const group of ['apps', 'libs']) {
  for (const project of await readdir(join(root, group))) {
    for await (const file of walk(join(root, group, project, 'src'))) {
      const rel = relative(root, file);
      const target = join(out, rel);
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
        if (isTest(file)) continue;
        jobs.push(
          transformFile(file, {
            filename: file,
            sourceMaps: true,
            jsc: {
              parser: { syntax: 'typescript', decorators: true },
              target: 'es2022',
              keepClassNames: true,
              baseUrl: root,
              paths,
              transform: { legacyDecorator: true, decoratorMetadata: true },
            },
            module: { type: 'commonjs' },
          }).then(async (r) => {
            const js = target.replace(/\.ts$/, '.js');
            await mkdir(dirname(js), { recursive: true });
            if (r.map) await writeAtomic(js + '.map', r.map);
            await writeAtomic(js, r.code + `\n//# sourceMappingURL=${js.split('/').pop()}.map\n`);
          }),
        );
      } else if (['.html', '.css', '.json', '.sql', '.svg'].includes(extname(file))) {
        jobs.push(mkdir(dirname(target), { recursive: true }).then(() => copyFile(file, target)));
      }
    }
  }
}
await Promise.all(jobs);
console.log(`build: ${jobs.length} files -> dist/`);
