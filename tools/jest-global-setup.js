// Integration tests run the services from dist/ as separate processes: build first so they test this tree.
// Every test name made by uniqueName() carries this run's tag, so the teardown can delete the run's topics.
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');

module.exports = async () => {
  process.env.TEST_RUN_TAG = `r${randomBytes(3).toString('hex')}x`;
  execFileSync(process.execPath, [join(__dirname, 'build.mjs')], { stdio: 'inherit' });
};
