import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsIP, IsString, Matches, Max, Min, IsUrl } from 'class-validator';
import { DEVELOPMENT_COMMAND_SECRET, isPublishedCommandSecret, MIN_COMMAND_SECRET_LENGTH, parseCommandSecrets } from './command-secret';
import { NotDefaultInProduction, Parses } from './config.validators';

const csv = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;

/** An IPv4 or IPv6 address, or a CIDR block (what TRUST_PROXY lists). */
const PROXY_ADDRESS = String.raw`(?:\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*(?:/\d{1,3})?)`;

/** Settings every service has; each app extends it with its own. Defaults work on a development machine. */
export class ServiceConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: string = 'development';

  @IsInt()
  @Min(1)
  @Max(65535)
  PORT: number = 3000;

  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://payments@127.0.0.1:5432/test';

  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DB_SCHEMA must be a lower-case SQL identifier' })
  DB_SCHEMA: string = 'public';

  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE: number = 10;

  /**
   * How long a pooled connection may sit idle before it is closed (0: kept until the service stops). A new
   * connection costs a backend, its catalog caches and each hot statement's parse and first plans; pools that
   * emptied in a quiet spell rebuilt all of that at once when payments came back (docs/decisions.md). Kept
   * connections are probed by TCP keepalive, so one the network dropped is replaced while idle.
   */
  @IsInt()
  @Min(0)
  @Max(86400000)
  DB_POOL_IDLE_TIMEOUT_MS: number = 0;

  /**
   * How long a statement of the service's pool waits for a row or table lock before it fails (0: no limit). A
   * stuck lock then costs its callers a retryable 503 (commands) or a retry (events), not every request queued
   * behind it. Migrations and the admin commands run without it.
   */
  @IsInt()
  @Min(0)
  @Max(600000)
  DB_LOCK_TIMEOUT_MS: number = 4000;

  /** How long one statement of the service's pool may run at all (0: no limit); the same failure as above. */
  @IsInt()
  @Min(0)
  @Max(3600000)
  DB_STATEMENT_TIMEOUT_MS: number = 30000;

  @Transform(csv)
  @Matches(/^[A-Za-z0-9.-]+:\d{1,5}$/, { each: true, message: 'KAFKA_BROKERS must be host:port[,host:port...]' })
  KAFKA_BROKERS: string[] = ['127.0.0.1:9092'];

  @Matches(/^[a-zA-Z0-9_-]{1,40}$/, { message: 'KAFKA_NAMESPACE must be 1-40 letters, digits, _ or -' })
  KAFKA_NAMESPACE: string = 'payments';

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /**
   * Operations port: Prometheus metrics, probes with what is down and why, diagnostics. Never published (neither
   * the compose file nor any Kubernetes Service exposes it); scrapers and operators reach it inside the cluster.
   */
  @IsInt()
  @Min(1)
  @Max(65535)
  OPS_PORT: number = 9000;

  /** Internal port of a service that owns commands (the gateway sends them there; never published). */
  @IsInt()
  @Min(1)
  @Max(65535)
  COMMAND_PORT: number = 4000;

  /**
   * The address the command port listens on: every interface by default (a container's port is reached through its
   * pod or network address); `127.0.0.1` when every caller runs on the same host.
   */
  @IsIP()
  COMMAND_HOST: string = '0.0.0.0';

  /**
   * Shared secret of the command transport: a caller proves it when it connects (and the owner proves it back),
   * so a peer without it runs no command. Every service and the gateway need the same one. While it is replaced,
   * several may be given comma-separated: callers prove the first, owners accept each. The default is a
   * development secret; it and every secret written in the repository are refused in production.
   */
  @Parses(parseCommandSecrets, `one or more secrets of at least ${MIN_COMMAND_SECRET_LENGTH} characters, comma-separated (e.g. \`openssl rand -base64 32\`)`)
  @NotDefaultInProduction(DEVELOPMENT_COMMAND_SECRET, {
    equals: isPublishedCommandSecret,
    message: '$property must be set to a secret when NODE_ENV=production (the built-in one and every one in the repository are public)',
  })
  COMMAND_SECRET: string = DEVELOPMENT_COMMAND_SECRET;

  /**
   * Kafka consumer session timeout: how long a crashed consumer's partitions wait before moving to a live member
   * (or to its own restart). Heartbeats go every sixth of it. Brokers accept less than 6000 only with
   * group.min.session.timeout.ms lowered; against one that is not, the consumers use its floor and warn.
   */
  @IsInt()
  @Min(1000)
  @Max(10000)
  KAFKA_SESSION_TIMEOUT_MS: number = 3000;

  /**
   * Most bytes the outbox relay sends to Kafka at once: under the broker's `message.max.bytes` (1 MiB by default),
   * past which it refuses a partition's batch for good. An event larger than this alone is parked (outbox_parked).
   */
  @IsInt()
  @Min(65536)
  @Max(1_000_000_000)
  OUTBOX_MAX_BATCH_BYTES: number = 1_000_000;

  /**
   * The outbox relay's safety poll: writers wake it (in process or by NOTIFY) after each commit, so this only
   * bounds a lost wake-up, and how soon a standing-by instance takes over from one that died. A service whose
   * outbox carries rare events sets a longer one: idle, every poll is a query that finds nothing.
   */
  @IsInt()
  @Min(50)
  @Max(60_000)
  OUTBOX_POLL_INTERVAL_MS: number = 2000;

  /**
   * After a relay cycle that sent rows, the next starts no sooner than this after it began (the first row after a
   * quiet spell goes at once): under steady load each cycle carries this span's rows in one read, one produce and
   * one fetch in every consumer. 50 ms cut a create's CPU at 100/s by a fifth against 20 ms (docs/performance.md).
   */
  @IsInt()
  @Min(0)
  @Max(1000)
  OUTBOX_SPACING_MS: number = 50;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @IsInt()
  @Min(100)
  @Max(600000)
  SHUTDOWN_TIMEOUT_MS: number = 15000;

  /**
   * CPU priority the process lowers itself to at start (nice, 0-19; never raised). A service whose work is
   * catching up on events (the ledger) yields the cores to the request path when both share a host; with a core
   * of its own (a Kubernetes pod's CPU request) it changes nothing.
   */
  @IsInt()
  @Min(0)
  @Max(19)
  PROCESS_NICE: number = 0;

  @IsString()
  INSTANCE_ID: string = `${process.pid}`;

  /**
   * Which proxies in front of the service may name the client in X-Forwarded-For (the address the gateway's
   * per-client limits count): `false`, none (the connection's own address; the default); a hop count (`1`: the
   * address the one proxy in front saw); or the proxies' addresses or CIDRs, comma-separated. Trusting the header
   * when nothing in front rewrites it lets every client choose its own address.
   */
  @Matches(new RegExp(`^(false|[1-9]|${PROXY_ADDRESS}(\\s*,\\s*${PROXY_ADDRESS})*)$`), {
    message: 'TRUST_PROXY must be false, a hop count (1-9), or comma-separated proxy addresses or CIDRs',
  })
  TRUST_PROXY: string = 'false';
}

/** TRUST_PROXY as Fastify's `trustProxy` option. */
export function trustProxyOption(setting: string): boolean | number | string {
  if (setting === 'false') return false;
  if (/^[1-9]$/.test(setting)) return Number(setting);
  return setting.split(',').map((part) => part.trim()).join(',');
}
