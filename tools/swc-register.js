// require hook: runs TypeScript (benchmarks, scripts) on plain node through swc, with the @payments/* aliases.
const { transformSync } = require('@swc/core');
const { addHook } = require('pirates');
const { join } = require('node:path');
const { compilerOptions } = require('../tsconfig.base.json');

const root = join(__dirname, '..');
addHook(
  (code, filename) =>
    transformSync(code, {
      filename,
      sourceMaps: 'inline',
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        target: 'es2022',
        keepClassNames: true,
        baseUrl: root,
        paths: compilerOptions.paths,
        transform: { legacyDecorator: true, decoratorMetadata: true },
      },
      module: { type: 'commonjs' },
    }).code,
  { exts: ['.ts'], ignoreNodeModules: true },
);
require('reflect-metadata');
