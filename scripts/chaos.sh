#!/usr/bin/env bash
# `npm run chaos`: the fault suite (chaos/run.ts). Sets up like `npm test` (packages, Redis, the broker's jars),
# builds, then makes test payments against the five services on a Kafka broker and a PostgreSQL cluster of its
# own (other ports, torn down at the end) while it kills and restarts them. Arguments go to the suite, e.g.
# `npm run chaos -- --payments 1000 --faults sessions,postgres`. Exit 1 when anything was lost or doubled.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/install-packages.sh
bash scripts/infra-up.sh
npm run build >/dev/null
node -r ./tools/swc-register.js chaos/run.ts "$@"
