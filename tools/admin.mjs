// `npm run admin -- <command>`: ledger commands go to the ledger's CLI, the rest (merchants, keys) to the gateway's.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require(process.argv[2] === 'ledger' ? '../dist/apps/ledger/src/admin/cli.js' : '../dist/apps/gateway/src/admin/cli.js');
