#!/usr/bin/env bash
# The local EVM chain for `crypto` on a development machine: anvil (from npm) on 127.0.0.1:CHAIN_PORT (8545),
# a block a second, its state kept in .cache/chain/state.json (written every 5 s and on exit, read at start), so
# the chain, its test tokens and the payments on it survive a restart. `start` also deploys the test tokens once
# (tools/chain-up.ts; recorded in .cache/chain/chain.json) and prints the settings the services take from it;
# `stop` stops it. Idempotent. Production points CRYPTO_CHAINS at real JSON-RPC nodes instead (docs/operations.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
port=${CHAIN_PORT:-8545}
dir=$root/.cache/chain
pidfile=$dir/anvil-$port.pid
log=$dir/anvil-$port.log

say() { echo "chain: $*"; }
die() { echo "chain: $*" >&2; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
answers() {
  curl -fsS --max-time 2 -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' \
    "http://127.0.0.1:$port" 2>/dev/null | grep -q '"result"'
}
# Only a pid that still runs anvil: after a reboot the number may belong to another process.
ours() { grep -qF anvil "/proc/$1/cmdline" 2>/dev/null; }

start() {
  mkdir -p "$dir"
  if answers; then
    say "already answering on 127.0.0.1:$port"
  else
    port_open "$port" && die "port $port is taken by something that is not a JSON-RPC node; set CHAIN_PORT"
    anvil=$(node -e 'process.stdout.write(require.resolve("@foundry-rs/anvil-linux-amd64/package.json").replace(/package\.json$/, "bin/anvil"))' 2>/dev/null) ||
      die "anvil is not installed (npm package @foundry-rs/anvil-linux-amd64, Linux x64 only); run npm install"
    say "starting anvil on 127.0.0.1:$port (state $dir/state.json)"
    nohup "$anvil" --host 127.0.0.1 --port "$port" --chain-id "${CHAIN_ID:-31337}" --block-time 1 \
      --state "$dir/state.json" --state-interval 5 --silent >>"$log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 60); do answers && break; sleep 0.5; done
    answers || { tail -n 20 "$log" >&2; die "anvil did not answer within 30 s (log $log)"; }
  fi
  node -r "$root/tools/swc-register.js" "$root/tools/chain-up.ts" --rpc "http://127.0.0.1:$port" --out "$dir/chain.json"
}

stop() {
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && ours "$(cat "$pidfile")"; then
    pid=$(cat "$pidfile")
    kill -TERM "$pid"
    # SIGTERM makes anvil write its state file before it exits.
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    say "stopped anvil (pid $pid)"
  else
    say "no anvil started here is running"
  fi
  rm -f "$pidfile"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) die "usage: chain.sh start|stop" ;;
esac
