// Lint exists mainly to enforce module boundaries: apps may import libs, libs never apps,
// domain libs never infrastructure, and no project reaches into another by relative path.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const boundaries = (extraForTests = []) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
      { sourceTag: 'layer:domain', onlyDependOnLibsWithTags: ['layer:domain', ...extraForTests] },
      { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra', ...extraForTests] },
      { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra'] },
    ],
  },
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
];
