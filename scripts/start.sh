#!/usr/bin/env bash
# `npm start`: installs packages if needed, brings up PostgreSQL, Redis, Kafka and a local EVM chain, builds, starts the five
# services in the background (logs and pid files in .cache/run/) and waits until each one is ready. Like
# production (DESIGN §3), each owner of commands and events (sessions, ledger, refunds, webhook-dispatcher) runs as
# REPLICAS instances (default 2; the second on its ports + 10): the gateway sends commands to all of them and
# their consumer groups split the partitions. Idempotent: a service already answering on its port is left
# running. `npm stop` stops what this started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
run=$root/.cache/run
ready_timeout=${START_TIMEOUT_SECONDS:-90}

# The gateway listens on PORT (default 3000), as DESIGN §9 says; checkout links follow it unless PUBLIC_BASE_URL
# is set. The other services keep their own ports.
gateway_port=${PORT:-3000}
export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://localhost:$gateway_port}
# Every service runs on this machine, so command ports listen on loopback only (COMMAND_HOST).
export COMMAND_HOST=${COMMAND_HOST:-127.0.0.1}

replicas=${REPLICAS:-2}
[[ "$replicas" =~ ^[1-9]$ ]] || { echo "start: REPLICAS must be 1..9 (got '$replicas')" >&2; exit 1; }

# instance:port:schema:operations port:command port, as in each service's own defaults; an owner's further
# instances (name-2, ...) take its ports + 10 each.
owners=(sessions:3001:sessions:9001:4001 ledger:3002:ledger:9002:4002 refunds:3003:refunds:9003:4003
  webhook-dispatcher:3004:webhooks:9004:4004)
services=(gateway:$gateway_port:gateway:9000:)
declare -A command_urls=()
for entry in "${owners[@]}"; do
  IFS=: read -r name port schema ops command <<<"$entry"
  for ((i = 1; i <= replicas; i++)); do
    step=$(((i - 1) * 10))
    instance=$name; [ "$i" -gt 1 ] && instance=$name-$i
    services+=("$instance:$((port + step)):$schema:$((ops + step)):$((command + step))")
    command_urls[$name]+="${command_urls[$name]:+,}tcp://127.0.0.1:$((command + step))"
  done
done
# Where the gateway sends each owner's commands (refunds asks sessions, sessions posts wallet payments and
# top-ups to the ledger), unless the caller says.
export SESSIONS_URL=${SESSIONS_URL:-${command_urls[sessions]}} LEDGER_URL=${LEDGER_URL:-${command_urls[ledger]}}
export REFUNDS_URL=${REFUNDS_URL:-${command_urls[refunds]}} WEBHOOKS_URL=${WEBHOOKS_URL:-${command_urls[webhook-dispatcher]}}

say() { echo "start: $*"; }
die() { echo "start: $*" >&2; exit 1; }

for entry in "${services[@]:1}"; do
  IFS=: read -r name port _ ops command <<<"$entry"
  [ "$gateway_port" != "$port" ] && [ "$gateway_port" != "$ops" ] && [ "$gateway_port" != "$command" ] || die "PORT=$gateway_port is $name's port here; pick another"
done
[ "$gateway_port" != 9000 ] || die "PORT=9000 is the gateway's operations port; pick another"
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ready() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/health/ready" 2>/dev/null; }
alive() { [ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null; }
show_log() {
  if [ -f "$run/$1.log" ]; then
    echo "start: last lines of $run/$1.log:" >&2
    tail -n 40 "$run/$1.log" >&2
  else
    echo "start: $1 was not started by this script (no log in $run)" >&2
  fi
}

command -v curl >/dev/null 2>&1 || die "'curl' is not installed; install it with: apt-get install -y curl"

bash scripts/install-packages.sh

bash scripts/infra-up.sh
# The local EVM chain for `crypto` (anvil, a block a second, its state kept across restarts) with its test tokens;
# the services take its settings (chain, tokens, the environments' extended public keys) unless the caller set
# CRYPTO_CHAINS, e.g. to a real chain's JSON-RPC node, in which case no local chain is started.
if [ -z "${CRYPTO_CHAINS:-}" ]; then
  bash scripts/chain.sh start
  set -a; . .cache/chain/crypto.env; set +a
fi
# The chain watcher (a process of the sessions app: a slow or failing JSON-RPC node never slows payment commands)
# when crypto has chains to watch; one instance, as it is active on one instance per chain anyway.
if [ -n "${CRYPTO_CHAINS:-}" ] && [ "${CRYPTO_CHAINS}" != "[]" ]; then services+=(chain-watcher:3005:sessions:9005:); fi
npm run build

mkdir -p "$run"
# A local start is for development: webhook endpoints on this machine (http://127.0.0.1:...) are allowed, so
# `npm run try` and a receiver of one's own work at once. Never in production (the services refuse it there).
if [ "${NODE_ENV:-}" = production ]; then allow_local=${WEBHOOK_ALLOW_INSECURE_TARGETS:-0}; else allow_local=${WEBHOOK_ALLOW_INSECURE_TARGETS:-1}; fi
for entry in "${services[@]}"; do
  IFS=: read -r name port schema ops command <<<"$entry"
  if port_open "$port"; then
    say "$name already answering on port $port; leaving it running"
    continue
  fi
  app=${name%-[0-9]}
  main=dist/apps/$app/src/main.js
  [ "$app" = chain-watcher ] && main=dist/apps/sessions/src/chain-watcher/main.js
  [ -f "$main" ] || die "$main is missing after the build: apps/$app/src/main.ts does not exist yet"
  # The caller's environment passes through (DATABASE_URL, KAFKA_BROKERS, LOG_LEVEL, ...); only the ports and
  # schema are per instance, so a PORT exported in the shell moves the gateway alone, not all of them onto one port.
  ports=(PORT=$port OPS_PORT=$ops); [ -n "$command" ] && ports+=(COMMAND_PORT=$command)
  env "${ports[@]}" DB_SCHEMA=${schema} WEBHOOK_ALLOW_INSECURE_TARGETS=$allow_local nohup node "$main" >>"$run/$name.log" 2>&1 &
  echo $! >"$run/$name.pid"
  say "started $name (pid $!, port $port, log $run/$name.log)"
done

say "waiting up to ${ready_timeout}s for every service to be ready"
deadline=$((SECONDS + ready_timeout))
pending=("${services[@]}")
while [ ${#pending[@]} -gt 0 ]; do
  still=()
  for entry in "${pending[@]}"; do
    IFS=: read -r name port _ <<<"$entry"
    if ready "$port"; then continue; fi
    if [ -f "$run/$name.pid" ] && ! alive "$name" && ! port_open "$port"; then
      echo "start: $name exited before it was ready" >&2
      show_log "$name"
      exit 1
    fi
    still+=("$entry")
  done
  pending=("${still[@]+"${still[@]}"}")
  [ ${#pending[@]} -eq 0 ] && break
  if [ "$SECONDS" -ge "$deadline" ]; then
    for entry in "${pending[@]}"; do
      IFS=: read -r name port _ <<<"$entry"
      echo "start: $name is not ready: GET http://127.0.0.1:$port/health/ready did not answer 200 within ${ready_timeout}s" >&2
      show_log "$name"
    done
    exit 1
  fi
  sleep 1
done

base=$PUBLIC_BASE_URL
echo
echo "All five services are ready ($replicas instance(s) of each but the gateway; REPLICAS sets it)."
echo "  Gateway                             $base"
echo "  Merchant dashboard                  $base/dashboard   (sign up at $base/dashboard/signup)"
echo "  API                                 $base/api/v1"
echo "  API docs (OpenAPI)                  $base/docs"
# Mail is kept for the development mail page unless MAIL_TRANSPORT=smtp (with SMTP_URL) is exported.
if [ "${MAIL_TRANSPORT:-page}" = page ]; then echo "  Development mail (nothing is sent)  $base/dev/mail"; fi
for entry in "${services[@]}"; do
  IFS=: read -r name port _ ops _ <<<"$entry"
  # Metrics and detailed readiness are on each service's operations port (OPS_PORT, 9000..9004).
  printf '  %-20s health http://127.0.0.1:%s/health/ready   metrics http://127.0.0.1:%s/metrics\n' "$name" "$port" "$ops"
done
if [ -n "${CRYPTO_CHAINS:-}" ] && [ "${CRYPTO_CHAINS}" != "[]" ]; then
  # The chains and tokens crypto payments are watched on (the local anvil chain unless CRYPTO_CHAINS was given).
  node -e 'for (const c of JSON.parse(process.argv[1])) console.log(`  Crypto chain ${c.name} (id ${c.chain_id})`.padEnd(38) + `${c.rpc_url}   tokens ${c.tokens.map((t) => `${t.symbol} ${t.address}`).join(", ")}; ${c.confirmations} confirmations`)' "$CRYPTO_CHAINS" ||
    echo "start: warning: CRYPTO_CHAINS is not valid JSON (the services will say why)" >&2
fi
if [ "$gateway_port" != 3000 ]; then echo "  (npm run try: GATEWAY_URL=http://127.0.0.1:$gateway_port npm run try)"; fi
echo "  Logs and pid files: $run   (stop everything with: npm stop)"
if [ "$allow_local" = 1 ]; then echo "  Webhook endpoints on this machine are allowed (development setting WEBHOOK_ALLOW_INSECURE_TARGETS=1)"; fi

# Demo merchant, once the admin command exists: its test key lets a first API call be made right away.
cli=dist/apps/gateway/src/admin/cli.js
if [ -f "$cli" ]; then
  if demo=$(node "$cli" demo --dashboard --json 2>"$run/demo.err"); then
    key=$(node -e 'const d = JSON.parse(process.argv[1]); process.stdout.write(String(d.test_key ?? ""))' "$demo") ||
      key=""
    sign_in=$(node -e 'const d = JSON.parse(process.argv[1]); if (d.dashboard_email) process.stdout.write(d.dashboard_email + " / " + d.dashboard_password)' "$demo") ||
      sign_in=""
    if [ -n "$key" ]; then
      echo
      echo "Demo merchant test key: $key"
      echo "  send it as 'Authorization: Bearer $key' to $base/api/v1/ (see $base/docs)"
      if [ -n "$sign_in" ]; then echo "Demo merchant dashboard: $base/dashboard   sign in as $sign_in (a new password at every start)"; fi
    else
      echo "start: warning: the demo command printed no test_key: $demo" >&2
    fi
  else
    echo "start: warning: creating the demo merchant failed (services are running):" >&2
    cat "$run/demo.err" >&2
  fi
fi
