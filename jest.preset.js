// Shared jest settings: swc transform (fast on 2 cores; keeps decorator metadata for Nest) and the lib aliases.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias}$`] = `<rootDir>/../../${target}`;
}

module.exports = (kind, name) => ({
  displayName: name,
  rootDir: `${__dirname}/${kind}/${name}`,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          target: 'es2022',
          keepClassNames: true,
          transform: { legacyDecorator: true, decoratorMetadata: true },
        },
        module: { type: 'commonjs' },
      },
    ],
    '/node_modules/@(scure|noble)/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // otplib's base32 and HMAC plugins (@scure/base, @noble/hashes) ship ES modules only: Node 20.19+ requires them
  // natively, jest's module system does not, so they are compiled to CommonJS for tests.
  transformIgnorePatterns: ['/node_modules/(?!(@scure|@noble)/)'],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
});
