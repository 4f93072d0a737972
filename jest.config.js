// One jest run over every app and lib: unit specs beside the code (src/**/*.spec.ts) and
// integration specs against real Postgres, Redis and Kafka (test/**/*.int-spec.ts).
const preset = require('./jest.preset');
const { readdirSync } = require('node:fs');

const projects = [];
for (const kind of ['libs', 'apps']) {
  for (const name of readdirSync(`${__dirname}/${kind}`)) projects.push(preset(kind, name));
}
// Deployment checks (Kubernetes manifests, Dockerfile, docker-compose.yml): tools/test/**/*.int-spec.ts.
const tools = preset('tools', '');
projects.push({
  ...tools,
  displayName: 'tools',
  rootDir: `${__dirname}/tools`,
  testMatch: ['<rootDir>/test/**/*.int-spec.ts'],
  moduleNameMapper: Object.fromEntries(
    Object.entries(tools.moduleNameMapper).map(([alias, target]) => [alias, target.replace('/../../', '/../')]),
  ),
});

module.exports = { projects, testTimeout: 60000, globalSetup: './tools/jest-global-setup.js', globalTeardown: './tools/jest-global-teardown.js' };
