// Lint exists mainly to enforce module boundaries: apps may import libs, libs never apps,
// domain libs never infrastructure, no project reaches into another by relative path, and domain code
// (an app's `src/domain/` and the domain-layer libs) stays plain TypeScript without a framework.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const boundaries = (extraForTests = []) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', ...extraForTests] },
      // Each service owns its scope; what two services share lives in a lib (scope:shared), never in another app.
      ...['gateway', 'sessions', 'ledger', 'refunds', 'webhooks'].map((scope) => ({
        sourceTag: `scope:${scope}`,
        onlyDependOnLibsWithTags: ['scope:shared'],
      })),
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      { sourceTag: 'layer:domain', onlyDependOnLibsWithTags: ['layer:domain', ...extraForTests] },
      { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', ...extraForTests] },
      { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra'] },
    ],
  },
];

/** Frameworks and infrastructure clients that domain code must not import (it is tested without them). */
export const FRAMEWORK_IMPORTS = [
  '@nestjs/*',
  'typeorm',
  'typeorm/*',
  'pg',
  'kafkajs',
  'ioredis',
  'fastify',
  'undici',
  '@payments/platform',
  '@payments/messaging',
  '@payments/testing',
];

/** Domain code: each app's `src/domain/` (and a feature's `src/<feature>/domain/`) and the libs tagged layer:domain in their project.json. */
export const DOMAIN_FILES = [
  'apps/*/src/domain/**/*.ts',
  'apps/*/src/*/domain/**/*.ts',
  'libs/config/src/**/*.ts',
  'libs/contracts/src/**/*.ts',
  'libs/events/src/**/*.ts',
  'libs/ids/src/**/*.ts',
  'libs/money/src/**/*.ts',
  'libs/webhooks/src/**/*.ts',
  'libs/webhook-receiver/src/**/*.ts',
];

export default [
  { ignores: ['**/node_modules/**', 'dist/**', '.cache/**', '.nx/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@nx': nx },
    rules: { '@nx/enforce-module-boundaries': boundaries() },
  },
  // Tests of any project may use the testing helpers (real databases, brokers, waits); production code may not.
  {
    files: ['**/test/**/*.ts', '**/*.spec.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(['layer:testing']) },
  },
  {
    files: DOMAIN_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: FRAMEWORK_IMPORTS,
              message: 'Domain code is plain TypeScript: keep framework and infrastructure imports in the app\'s edge (modules, handlers, repositories).',
            },
          ],
        },
      ],
    },
  },
];
