// One jest run over every app and lib: unit specs beside the code (src/**/*.spec.ts) and
// integration specs against real Postgres, Redis and Kafka (test/**/*.int-spec.ts).
const preset = require('./jest.preset');
const { readdirSync } = require('node:fs');

const projects = [];
for (const kind of ['libs', 'apps']) {
  for (const name of readdirSync(`${__dirname}/${kind}`)) projects.push(preset(kind, name));
}

module.exports = { projects, testTimeout: 60000 };
