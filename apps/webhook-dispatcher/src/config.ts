import { DEFAULT_RETRY_SCHEDULE_MS, DISABLE_AFTER_FAILING_MS, WebhookServiceConfig } from '@payments/webhooks';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { parseMillisList } from './config.validators';

/**
 * Settings of the webhook-dispatcher service (environment variables; see README). WEBHOOK_SECRETS_KEY and
 * WEBHOOK_ALLOW_INSECURE_TARGETS are shared with the gateway (WebhookServiceConfig).
 */
export class WebhookDispatcherConfig extends WebhookServiceConfig {
  /** Per attempt, from resolving the host to the answer's first KiB. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /** Sent as User-Agent: a service-specific agent name with a version. */
  @IsString()
  @Matches(/^[A-Za-z][A-Za-z0-9._-]*\/\d+(\.\d+)*( .*)?$/, { message: 'WEBHOOK_USER_AGENT must be <name>/<version>, e.g. PaymentsWebhooks/1.0' })
  WEBHOOK_USER_AGENT: string = 'PaymentsWebhooks/1.0';

  /** Delays between attempts in ms, comma-separated. For tests; the default is DESIGN §6's schedule. */
  @Transform(parseMillisList)
  @IsInt({ each: true, message: 'WEBHOOK_RETRY_SCHEDULE_MS must be a comma-separated list of whole milliseconds' })
  @Min(0, { each: true })
  WEBHOOK_RETRY_SCHEDULE_MS: number[] = [...DEFAULT_RETRY_SCHEDULE_MS];

  /** Attempts in flight to one endpoint from one instance: a slow endpoint only ever holds this many slots. */
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_ENDPOINT_CONCURRENCY: number = 4;

  /** Attempts in flight from one instance, over every endpoint. */
  @IsInt()
  @Min(1)
  @Max(2000)
  WEBHOOK_MAX_IN_FLIGHT: number = 128;

  /**
   * A claimed delivery's lease: its instance renews it every quarter of this while the attempt runs (however long,
   * up to the timeout), and a crashed instance's claims are free this long after its last renewal. At most 2 s
   * (DESIGN §3: a crash frees what it held within 2 s); at least 1 s, so a renewal has room to be late.
   */
  @IsInt()
  @Min(1000)
  @Max(2000)
  WEBHOOK_LEASE_MS: number = 2000;

  /**
   * How often due deliveries are looked for when no notification arrives: retries coming due, and a crashed
   * instance's deliveries once their lease lapsed (at most 2 s, so those go out again within lease + poll).
   */
  @IsInt()
  @Min(20)
  @Max(2000)
  WEBHOOK_POLL_INTERVAL_MS: number = 1000;

  /** An endpoint failing for this long without a success is disabled (DESIGN §6: 5 days). */
  @IsInt()
  @Min(1000)
  WEBHOOK_DISABLE_AFTER_MS: number = DISABLE_AFTER_FAILING_MS;

  /** Received events are kept this long for resends and replays. */
  @IsInt()
  @Min(1)
  @Max(365)
  WEBHOOK_EVENT_RETENTION_DAYS: number = 30;
}

/**
 * OUTBOX_POLL_INTERVAL_MS: the dispatcher's outbox carries only endpoints it disabled (a few a day), and each
 * write wakes the relay; idle, the 500 ms poll was half of the instance's queries.
 */
export const WEBHOOK_DISPATCHER_DEFAULTS = { PORT: '3004', OPS_PORT: '9004', COMMAND_PORT: '4004', DB_SCHEMA: 'webhooks', OUTBOX_POLL_INTERVAL_MS: '5000' };
