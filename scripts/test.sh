#!/usr/bin/env bash
# `npm test`: the whole check, as CI runs it. Installs packages if needed, brings up PostgreSQL, Redis and
# Kafka, then type check, lint, build, every jest project (unit, integration against the real services,
# deployment manifests) and short runs of the fault suite (100 payments through seven faults, on a broker and
# a database of its own; then 60 with two instances of each owner, one of each killed in turn). Extra arguments
# go to jest, e.g. `npm test -- --selectProjects money` (then the fault suite is skipped: a selection is a
# partial run).
# Any failing step stops the run with a non-zero exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

step() { echo; echo "test: == $* =="; }
die() { echo "test: $*" >&2; exit 1; }

bash scripts/install-packages.sh

step "infrastructure"
bash scripts/infra-up.sh

# The Kubernetes manifests test renders k8s/ with `kubectl kustomize`.
if ! command -v kubectl >/dev/null 2>&1; then
  step "installing kubectl (Debian package kubernetes-client)"
  [ "$(id -u)" = 0 ] || die "kubectl is missing; install it with: sudo apt-get install -y kubernetes-client"
  apt_log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    die "installing kubernetes-client failed (output above)"
  fi
  rm -f "$apt_log"
  command -v kubectl >/dev/null 2>&1 || die "kubernetes-client installed but kubectl is still not on PATH"
fi

# The checkout's browser tests drive Debian's chromium (playwright-core, no downloaded browser).
if [ ! -x /usr/bin/chromium ]; then
  step "installing chromium (Debian package, for the checkout's browser tests)"
  [ "$(id -u)" = 0 ] || die "chromium is missing; install it with: sudo apt-get install -y chromium"
  apt_log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    die "installing chromium failed (output above)"
  fi
  rm -f "$apt_log"
fi

# The monitoring kit's test checks the alert rules with promtool (Debian's prometheus package; its services are not
# started: only the promtool binary is used).
if ! command -v promtool >/dev/null 2>&1; then
  step "installing promtool (Debian package prometheus)"
  [ "$(id -u)" = 0 ] || die "promtool is missing; install it with: sudo apt-get install -y prometheus"
  apt_log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    die "installing prometheus failed (output above)"
  fi
  rm -f "$apt_log"
  command -v promtool >/dev/null 2>&1 || die "prometheus installed but promtool is still not on PATH"
fi

step "type check"
npm run typecheck
step "lint"
npm run lint
step "build"
npm run build
step "jest"
npx jest --ci --forceExit "$@"
if [ "$#" -eq 0 ]; then
  step "fault suite (short: npm run chaos runs 400 payments)"
  node -r ./tools/swc-register.js chaos/run.ts --payments 100
  step "fault suite with two instances of each owner (short: npm run chaos -- --replicas 2 runs 400 payments)"
  node -r ./tools/swc-register.js chaos/run.ts --payments 60 --replicas 2
fi
