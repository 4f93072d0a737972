#!/usr/bin/env bash
# Brings up what the services and tests need on a development or CI machine: the machine's own PostgreSQL
# and Redis on loopback (started if stopped), the `payments` role and its use of database `test`, and a local Kafka broker.
# Idempotent: whatever already answers is left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pg_port=5432
redis_port=6379

say() { echo "infra: $*"; }
die() { echo "infra: $*" >&2; exit 1; }

# Each tool with the Debian package that provides it, so a missing one is a one-line fix.
need() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' is not installed; install it with: apt-get install -y $2"
}
need pg_isready postgresql-client
need psql postgresql-client
need redis-cli redis-tools

pg_up() { pg_isready -q -h 127.0.0.1 -p "$pg_port"; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = "PONG" ]; }

# wait_for NAME CHECK SECONDS LOGFILE
wait_for() {
  for _ in $(seq 1 "$(($3 * 2))"); do
    if "$2"; then return 0; fi
    sleep 0.5
  done
  echo "infra: $1 did not answer within $3 s; last lines of $4:" >&2
  tail -n 20 "$4" >&2 2>/dev/null || echo "infra: (no log at $4)" >&2
  exit 1
}

if pg_up; then
  say "PostgreSQL already answering on 127.0.0.1:$pg_port"
else
  need pg_ctlcluster postgresql
  [ -d /etc/postgresql ] || die "no PostgreSQL cluster under /etc/postgresql; install one with: apt-get install -y postgresql"
  pg_version=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
  say "starting PostgreSQL $pg_version"
  # A cluster that is up but not yet accepting connections makes start report an error; the wait below decides.
  if ! pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start; then
    say "pg_ctlcluster reported a problem; waiting to see whether PostgreSQL answers"
  fi
  wait_for PostgreSQL pg_up 30 "/var/log/postgresql/postgresql-$pg_version-main.log"
  say "PostgreSQL up on 127.0.0.1:$pg_port"
fi

if redis_up; then
  say "Redis already answering on 127.0.0.1:$redis_port"
else
  need redis-server redis-server
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$redis_port" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up 15 /var/log/redis/ci.log
  say "Redis up on 127.0.0.1:$redis_port"
fi

# The services' default DATABASE_URL is postgres://payments@127.0.0.1:5432/test (trust auth on loopback): the
# machine's database `test`, where the services keep their schemas, as the role `payments` (not a superuser).
sql() { psql -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 -Atqc "$1"; }
role_exists() { [ "$(sql "select 1 from pg_roles where rolname = 'payments'")" = "1" ]; }
db_exists() { [ "$(sql "select 1 from pg_database where datname = 'test'")" = "1" ]; }
# Another run (start and test at once) may create it first: only a still-missing object is an error.
if ! role_exists; then
  sql "create role payments login" || role_exists || die "could not create role payments"
  say "created role payments"
fi
if ! db_exists; then
  sql "create database test owner payments" || db_exists || die "could not create database test"
  say "created database test"
fi
# The database may belong to another role (the machine's own): the services create their schemas in it.
sql "grant connect, create, temporary on database test to payments" || die "could not grant role payments the use of database test"

# The broker is fetched from Maven Central and run on the JVM (unless one already answers).
if ! bash "$root/scripts/kafka.sh" status >/dev/null; then
  need java default-jre-headless
  need mvn maven
fi
bash "$root/scripts/kafka.sh" start
say "ready: PostgreSQL 127.0.0.1:$pg_port (database test), Redis 127.0.0.1:$redis_port, Kafka 127.0.0.1:${KAFKA_PORT:-9092}"
