// Lint exists mainly to enforce module boundaries: apps may import libs, libs never apps,
// domain libs never infrastructure, and no project reaches into another by relative path.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/node_modules/**', 'dist/**', '.cache/**', '.nx/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'layer:domain', onlyDependOnLibsWithTags: ['layer:domain'] },
            { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra'] },
            { sourceTag: 'layer:testing', onlyDependOnLibsWithTags: ['layer:domain', 'layer:infra'] },
          ],
        },
      ],
    },
  },
];
