#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft) for development and CI, from Maven Central jars.
# Usage: scripts/kafka.sh start|stop|status. Idempotent: start reuses a broker already answering on the port.
# Settings: KAFKA_VERSION (default 3.9.1), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093),
#           KAFKA_DIR (cache and data, default <repo>/.cache/kafka), KAFKA_HEAP (default 512m),
#           KAFKA_ADVERTISED_PORT (the port clients are told to use, default KAFKA_PORT: a test's proxy sets it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${KAFKA_VERSION:-3.9.1}
port=${KAFKA_PORT:-9092}
cport=${KAFKA_CONTROLLER_PORT:-9093}
aport=${KAFKA_ADVERTISED_PORT:-$port}
dir=${KAFKA_DIR:-$root/.cache/kafka}
lib=$dir/lib-$version
data=$dir/data-$port
conf=$dir/server-$port.properties
pidfile=$dir/broker-$port.pid
log=$dir/broker-$port.log

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# 3.x logs through reload4j (log4j 1 syntax), 4.x through log4j 2.
log_profile() { case "$version" in 3.*) echo kafka3 ;; *) echo kafka4 ;; esac; }

fetch() {
  [ -f "$lib/.complete" ] && return 0
  echo "kafka: fetching broker $version jars from Maven Central" >&2
  rm -rf "$lib"; mkdir -p "$lib"
  mvn -q -B -f "$root/infra/kafka/pom.xml" dependency:copy-dependencies -P"$(log_profile)" \
    -Dkafka.version="$version" -DincludeScope=runtime -DoutputDirectory="$lib" >&2
  touch "$lib/.complete"
}

write_config() {
  mkdir -p "$data"
  cat > "$conf" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$aport
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# Consumers ask for a 3 s session (KAFKA_SESSION_TIMEOUT_MS) so a killed member's partitions move within 5 s;
# Kafka's default floor is 6 s.
group.min.session.timeout.ms=1000
log.retention.hours=24
# Sized for a development machine of a few cores: Kafka's defaults (3 network and 8 request threads, a metadata
# no-op record every 500 ms) are for a server's, and their idle polling was most of the idle broker's CPU.
num.network.threads=2
num.io.threads=2
metadata.max.idle.interval.ms=5000
CONF
  cat > "$dir/log4j2.properties" <<CONF
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
CONF
  cat > "$dir/log4j.properties" <<CONF
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
CONF
}

java_opts() {
  local logging="-Dlog4j.configuration=file:$dir/log4j.properties"
  [ "$(log_profile)" = kafka4 ] && logging="-Dlog4j2.configurationFile=$dir/log4j2.properties"
  echo "-Xmx${KAFKA_HEAP:-512m} -Xms${KAFKA_HEAP:-512m} -XX:+UseG1GC -Djava.awt.headless=true $logging"
}

start() {
  if port_open "$port"; then echo "kafka: already answering on 127.0.0.1:$port"; return 0; fi
  mkdir -p "$dir"; fetch; write_config
  if [ ! -f "$data/meta.properties" ]; then
    local id
    # shellcheck disable=SC2046
    id=$(java $(java_opts) -cp "$lib/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1)
    java $(java_opts) -cp "$lib/*" kafka.tools.StorageTool format -t "$id" -c "$conf" --ignore-formatted >"$dir/format.log" 2>&1
  fi
  # shellcheck disable=SC2046
  nohup java $(java_opts) -cp "$lib/*" kafka.Kafka "$conf" >"$log" 2>&1 &
  echo $! > "$pidfile"
  for _ in $(seq 1 120); do
    if port_open "$port"; then echo "kafka: broker $version ready on 127.0.0.1:$port"; return 0; fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then echo "kafka: broker exited; last lines of $log:" >&2; tail -n 30 "$log" >&2; exit 1; fi
    sleep 0.5
  done
  echo "kafka: broker did not open 127.0.0.1:$port within 60 s; see $log" >&2; exit 1
}

stop() {
  [ -f "$pidfile" ] || { echo "kafka: not started by this checkout"; return 0; }
  local pid; pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"; echo "kafka: stopped"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) if port_open "$port"; then echo "kafka: up on 127.0.0.1:$port"; else echo "kafka: down"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
