import { CommandUrls, ServiceConfig } from '@payments/config';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

/** Settings of the sessions service (environment variables; see README). */
export class SessionsConfig extends ServiceConfig {
  /** Base of every checkout_url (`${PUBLIC_BASE_URL}/checkout/<id>`): the gateway's public address. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL: string = 'http://localhost:3000';

  /** How often the expiry job looks for intents and invoices past expires_at (DESIGN: expired within 5 s). */
  @IsInt()
  @Min(100)
  @Max(60000)
  EXPIRY_INTERVAL_MS: number = 1000;

  /**
   * How long an Idempotency-Key holds its object: the gateway's setting of the same name (one ConfigMap sets both).
   * Past it, the key makes a new object, as it does at the gateway once its replay record has expired.
   */
  @IsInt()
  @Min(60)
  @Max(30 * 86400)
  IDEMPOTENCY_TTL_SECONDS: number = 86400;

  /**
   * The ledger's command port(s), comma-separated (`tcp://ledger-0:4002,tcp://ledger-1:4002`): wallet payments and
   * top-ups are posted there (wallets.pay, wallets.top-up).
   */
  @CommandUrls()
  LEDGER_URL: string[] = ['tcp://127.0.0.1:4002'];

  /**
   * How long a wallet command to the ledger may take. Past it the payment is pending: the attempt stays open and the
   * background check asks again with the same payment id (the ledger answers a payment id once).
   */
  @IsInt()
  @Min(100)
  @Max(60000)
  LEDGER_TIMEOUT_MS: number = 3000;

  /** Lahza's API (a local stand-in in tests). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  LAHZA_BASE_URL: string = 'https://api.lahza.io';

  /** Lahza's live secret key (sk_live_…): live sessions take cards only when it is set. A secret: never logged. */
  @IsOptional()
  @IsString()
  @Matches(/^\S{8,200}$/, { message: 'LAHZA_LIVE_SECRET_KEY must be 8-200 characters without spaces' })
  LAHZA_LIVE_SECRET_KEY?: string;

  /** Lahza's test key (sk_test_…): test sessions also offer Lahza's own test page beside the sandboxes. */
  @IsOptional()
  @IsString()
  @Matches(/^\S{8,200}$/, { message: 'LAHZA_TEST_SECRET_KEY must be 8-200 characters without spaces' })
  LAHZA_TEST_SECRET_KEY?: string;

  /** How long one call to Lahza may take before the attempt is left to be verified again later. */
  @IsInt()
  @Min(500)
  @Max(60000)
  LAHZA_TIMEOUT_MS: number = 10000;

  /** The HMAC of x-lahza-signature (sources disagree on Lahza's; DESIGN §7 makes it a setting). */
  @IsIn(['sha512', 'sha256'])
  LAHZA_SIGNATURE_ALGORITHM: 'sha512' | 'sha256' = 'sha512';

  /** How often open provider attempts are looked at; each is verified again with a growing pause (5 s to 5 min). */
  @IsInt()
  @Min(100)
  @Max(60000)
  PROVIDER_CHECK_INTERVAL_MS: number = 2000;

  /**
   * How long the answer to a provider's refund notification waits for the provider's word on the refunds it names
   * (to name those settled); payment notifications are answered at once. Either way the provider calls go on after.
   */
  @IsInt()
  @Min(0)
  @Max(4000)
  PROVIDER_NOTIFICATION_WAIT_MS: number = 500;
}

export const SESSIONS_DEFAULTS = { PORT: '3001', OPS_PORT: '9001', COMMAND_PORT: '4001', DB_SCHEMA: 'sessions' };
