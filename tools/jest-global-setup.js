// Integration tests run the services from dist/ as separate processes: build first so they test this tree.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async () => {
  execFileSync(process.execPath, [join(__dirname, 'build.mjs')], { stdio: 'inherit' });
};
