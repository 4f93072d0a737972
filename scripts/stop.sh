#!/usr/bin/env bash
# `npm stop`: stops the services `npm start` started (pid files in .cache/run/) with SIGTERM so they finish
# in-flight work and commit offsets, then the local Kafka broker and the local chain (its state is kept for the next start). PostgreSQL and Redis are the machine's
# own and stay up. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run=$root/.cache/run
grace=${STOP_TIMEOUT_SECONDS:-30}
services=(gateway sessions ledger refunds webhook-dispatcher chain-watcher)

# Only a pid that still runs this checkout's service: after a reboot the number may belong to another process.
ours() {
  local main="dist/apps/${1%-[0-9]}/src/main.js"
  [ "$1" = chain-watcher ] && main=dist/apps/sessions/src/chain-watcher/main.js
  grep -qF "$main" "/proc/$2/cmdline" 2>/dev/null
}

# Every instance npm start started: name.pid, and name-2.pid ... for an owner's further instances.
instances=()
for name in "${services[@]}"; do
  for pidfile in "$run/$name.pid" "$run/$name"-[0-9].pid; do
    [ -f "$pidfile" ] && instances+=("$(basename "$pidfile" .pid)")
  done
done

stopping=()
for name in "${instances[@]+"${instances[@]}"}"; do
  pidfile=$run/$name.pid
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null && ours "$name" "$pid"; then
    kill -TERM "$pid"
    echo "stop: sent SIGTERM to $name (pid $pid)"
    stopping+=("$name:$pid")
  else
    echo "stop: $name (pid $pid) was not running"
    rm -f "$pidfile"
  fi
done

[ ${#stopping[@]} -gt 0 ] || echo "stop: no service started by npm start is running"
deadline=$((SECONDS + grace))
for entry in "${stopping[@]+"${stopping[@]}"}"; do
  IFS=: read -r name pid <<<"$entry"
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "stop: $name (pid $pid) still running after ${grace}s; sending SIGKILL (see $run/$name.log)" >&2
    kill -KILL "$pid" 2>/dev/null || echo "stop: $name (pid $pid) exited meanwhile"
  else
    echo "stop: $name stopped"
  fi
  rm -f "$run/$name.pid"
done

bash "$root/scripts/kafka.sh" stop
bash "$root/scripts/chain.sh" stop
