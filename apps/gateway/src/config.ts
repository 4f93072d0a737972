import { WebhookServiceConfig } from '@payments/webhooks';
import { CommandUrls, NotDefaultInProduction, OffInProduction, parseFlag, Parses } from '@payments/config';
import { Transform } from 'class-transformer';
import { parseFeeSchedule, type FeeSchedule } from '@payments/money';
import { IsBoolean, IsIn, IsInt, IsUrl, Matches, Max, Min, ValidateIf } from 'class-validator';
import { parseRetryDelays } from './mail/mail-retry.policy';

/** Settings of the gateway (environment variables; see README); the webhook settings are shared with the dispatcher. */
export class GatewayConfig extends WebhookServiceConfig {
  /** How long the gateway waits for a service's reply before answering 503 service_unavailable. */
  @IsInt()
  @Min(100)
  @Max(60000)
  REQUEST_TIMEOUT_MS: number = 5000;

  /**
   * Where each owning service takes commands: its instances' internal command ports, comma-separated
   * (`tcp://sessions-0:4001,tcp://sessions-1:4001`). Commands go round-robin; a dead instance is passed over.
   */
  @CommandUrls()
  SESSIONS_URL: string[] = ['tcp://127.0.0.1:4001'];

  @CommandUrls()
  LEDGER_URL: string[] = ['tcp://127.0.0.1:4002'];

  @CommandUrls()
  REFUNDS_URL: string[] = ['tcp://127.0.0.1:4003'];

  @CommandUrls()
  WEBHOOKS_URL: string[] = ['tcp://127.0.0.1:4004'];

  /** Connections the gateway holds to each instance of a service; each carries any number of commands at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  COMMAND_CONNECTIONS: number = 1;

  /**
   * How long an instance may leave a command unanswered while answering nothing else before it counts as hung (a
   * stopped process, a blocked loop): it is passed over until it answers a ping, and the command goes to another
   * instance with the same command id. Capped at half the command's remaining deadline.
   */
  @IsInt()
  @Min(50)
  @Max(30000)
  COMMAND_ANSWER_WINDOW_MS: number = 1000;

  /** Base of checkout_url and links in docs. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL: string = 'http://localhost:3000';

  /**
   * The standard fee schedule, in basis points per method over DESIGN's (service balance `togo`/`wallet` 50,
   * `crypto` 150, `lahza` 150): e.g. `lahza=120`; `togo` alone sets `wallet` too. A merchant's own rates (admin CLI
   * `merchant fees`) go over it, and each create sends the result to sessions, where the session keeps it.
   */
  @Parses(parseFeeSchedule, 'basis points per payment method, comma-separated (e.g. lahza=120,crypto=150)')
  FEE_SCHEDULE_BPS: string = '';

  /** Requests per second per live key, unless the merchant has its own limit (admin CLI `merchant limits`). */
  @IsInt()
  @Min(1)
  @Max(100000)
  RATE_LIMIT_LIVE_PER_SEC: number = 100;

  /** Requests per second per test key, unless the merchant has its own limit. */
  @IsInt()
  @Min(1)
  @Max(100000)
  RATE_LIMIT_TEST_PER_SEC: number = 25;

  /**
   * Failed dashboard sign-ins (password or second step) one client address may make per
   * ADDRESS_LIMIT_WINDOW_SECONDS, across every account and every gateway instance; past it the address is refused
   * (429) before any password is checked. The per-account lock-out (10 failures) stands beside it.
   */
  @IsInt()
  @Min(1)
  @Max(100000)
  SIGN_IN_FAILURES_PER_ADDRESS: number = 100;

  /** Forms that send mail to an address typed into them (sign-up, confirmation, reset) per client address and window. */
  @IsInt()
  @Min(1)
  @Max(100000)
  FORM_MAILS_PER_ADDRESS: number = 100;

  /**
   * The customers' side of the two limits above, apart from the merchants': wrong wallet codes, and wallet codes asked
   * for, per client address and window. Larger: a checkout's customers come from mobile networks that put many
   * behind one address, and each address and code has its own limits besides (a code dies after 5 wrong tries).
   */
  @IsInt()
  @Min(1)
  @Max(100000)
  WALLET_CODE_FAILURES_PER_ADDRESS: number = 300;

  @IsInt()
  @Min(1)
  @Max(100000)
  WALLET_CODES_PER_ADDRESS: number = 300;

  /** The window of the per-address limits above. */
  @IsInt()
  @Min(1)
  @Max(86400)
  ADDRESS_LIMIT_WINDOW_SECONDS: number = 900;

  /**
   * How long an instance reuses a looked-up API key and its merchant before refreshing it (in the background while
   * the key is in use). No entry is used once a second old, whatever this says: revocation, verification and limit
   * changes reach every instance within one second without any cross-instance messaging. 0 turns the cache off.
   */
  @IsInt()
  @Min(0)
  @Max(1000)
  API_KEY_CACHE_MS: number = 500;

  /**
   * How long an instance reuses a merchant's balance read from the ledger before reading it again in the background
   * (reads meanwhile share it); none is answered older than 750 ms, so a payment shows within a second. 0 turns
   * it off: every GET /api/v1/balance asks the ledger.
   */
  @IsInt()
  @Min(0)
  @Max(750)
  BALANCE_CACHE_MS: number = 250;

  /**
   * How long the gateway's Redis read model keeps a payment intent or invoice nobody changes or reads again
   * (GETs are answered from it; changes invalidate it). 0 turns it off: every GET asks the sessions service.
   */
  @IsInt()
  @Min(0)
  @Max(7 * 86400)
  RESOURCE_CACHE_TTL_SECONDS: number = 3600;

  /**
   * Development only (refused when NODE_ENV=production): a merchant's identity-verification submission is verified
   * at once, so live mode can be tried without an operator.
   */
  @Transform(parseFlag)
  @IsBoolean()
  @OffInProduction()
  VERIFICATION_AUTO_APPROVE: boolean = false;

  /** How long a completed response is kept for replay under its Idempotency-Key. */
  @IsInt()
  @Min(60)
  @Max(30 * 86400)
  IDEMPOTENCY_TTL_SECONDS: number = 86400;

  /** How long a duplicate request waits for the first one with the same key before answering 409 in progress. */
  @IsInt()
  @Min(0)
  @Max(60000)
  IDEMPOTENCY_WAIT_MS: number = 10000;

  /**
   * How e-mail to merchants leaves: `smtp` sends it through SMTP_URL; `page` (development only, refused when
   * NODE_ENV=production) sends nothing and shows every message on the development mail page, /dev/mail.
   */
  @IsIn(['smtp', 'page'])
  @NotDefaultInProduction('page', {
    message: '$property=page is a development setting and is refused when NODE_ENV=production (set smtp and SMTP_URL)',
  })
  MAIL_TRANSPORT: 'smtp' | 'page' = 'page';

  /**
   * The SMTP server mail goes through, when MAIL_TRANSPORT=smtp: `smtp://user:password@host:587` (STARTTLS when
   * the server offers it) or `smtps://…:465` (TLS from the start); nodemailer's URL options may follow `?`.
   */
  @ValidateIf((config: GatewayConfig) => config.MAIL_TRANSPORT === 'smtp')
  @Matches(/^smtps?:\/\/[^\s/?#]+(:\d{1,5})?\/?(\?\S*)?$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:587) when MAIL_TRANSPORT=smtp' })
  SMTP_URL: string = '';

  /** The From of every message: an address, or `Name <address>`. */
  @Matches(/^(?:[^<>\r\n]{1,100} <[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, { message: 'MAIL_FROM must be an address or "Name <address>"' })
  MAIL_FROM: string = 'Payments <no-reply@localhost>';

  /**
   * Waits between attempts at a message the SMTP server did not take, in ms, comma-separated; the last one repeats.
   * A message still unsent MAIL_GIVE_UP_AFTER_MS after it was written is given up (logged as an error, counted).
   */
  @Parses(parseRetryDelays, 'waits in ms, comma-separated, each 100 to 86400000 (e.g. 10000,60000,300000)')
  MAIL_RETRY_DELAYS_MS: string = '10000,60000,300000,1800000,3600000';

  @IsInt()
  @Min(1000)
  @Max(30 * 86400_000)
  MAIL_GIVE_UP_AFTER_MS: number = 86400_000;

  /** How often each instance looks for mail to send (another instance's writes, retries coming due). */
  @IsInt()
  @Min(50)
  @Max(60000)
  MAIL_POLL_MS: number = 1000;
}

export const GATEWAY_DEFAULTS = { PORT: '3000', OPS_PORT: '9000', DB_SCHEMA: 'gateway' };

/** The standard fee schedule the settings give (FEE_SCHEDULE_BPS over DESIGN's). */
export function standardFeeSchedule(config: Pick<GatewayConfig, 'FEE_SCHEDULE_BPS'>): FeeSchedule {
  return parseFeeSchedule(config.FEE_SCHEDULE_BPS);
}
