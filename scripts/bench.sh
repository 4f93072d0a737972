#!/usr/bin/env bash
# `npm run bench`: the speed figures (nothing here asserts). Sets up like `npm test`, builds, then runs each
# benchmark in turn and prints its figures. Pick some with BENCH="api outbox" and shorten with BENCH_SECONDS.
# The figures of record (api, webhooks-e2e, ledger, refunds, checkout, dashboard, wallet, crypto, idle) are
# measured on the whole system as `npm start` runs it (bench/bench-support.ts startWholeSystem: all five services,
# REPLICAS instances of each owner, one gateway, info logging), with this VM's bare HTTP figure beside them; api, webhooks-e2e, ledger,
# refunds and checkout can also measure a named part (--services, see each file's usage line). transport, outbox
# and webhooks measure one part alone, outside the services (the command transport, the outbox relay and
# consumer, the dispatcher's delivery worker): breakdowns, not figures of record. BENCH_TRACING=0.1 makes api
# compare create throughput with tracing off and on at that sampling ratio (BENCH=api BENCH_TRACING=0.1).
# OTEL_* settings in the environment are passed to the services api starts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/install-packages.sh
bash scripts/infra-up.sh
npm run build >/dev/null

seconds=${BENCH_SECONDS:-30}
which=${BENCH:-transport outbox api webhooks webhooks-e2e ledger refunds checkout dashboard wallet crypto idle}
echo "bench: $(date -u +%FT%TZ) on $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, node $(node --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in $which; do
  case "$b" in
    transport) node -r ./tools/swc-register.js bench/transport.ts ;;
    outbox) node -r ./tools/swc-register.js bench/outbox-latency.ts --rate 1000 --seconds "$seconds" ;;
    api) node -r ./tools/swc-register.js bench/api.ts --seconds "$seconds" --connections 64 ${BENCH_TRACING:+--tracing "$BENCH_TRACING"} ;;
    webhooks) if [ -f bench/webhooks.ts ]; then node -r ./tools/swc-register.js bench/webhooks.ts --seconds "$seconds"; fi ;;
    webhooks-e2e) node -r ./tools/swc-register.js bench/webhooks-e2e.ts --seconds "$seconds" --rate 300 ;;
    ledger) node -r ./tools/swc-register.js bench/ledger.ts --seconds "$seconds" ;;
    refunds) node -r ./tools/swc-register.js bench/refunds.ts --seconds "$seconds" ;;
    checkout) node -r ./tools/swc-register.js bench/checkout.ts --seconds "$seconds" ;;
    dashboard) node -r ./tools/swc-register.js bench/dashboard.ts --seconds "$seconds" ;;
    wallet) node -r ./tools/swc-register.js bench/wallet.ts --seconds "$seconds" ;;
    crypto) node -r ./tools/swc-register.js bench/crypto.ts --seconds "$seconds" ;;
    idle) node -r ./tools/swc-register.js bench/idle.ts --seconds "$seconds" ;;
    *) echo "bench: unknown benchmark $b (transport, outbox, api, webhooks, webhooks-e2e, ledger, refunds, checkout, dashboard, wallet, crypto, idle)" >&2; exit 2 ;;
  esac
done
