import { ServiceConfig } from '@payments/config';
import { IsInt, IsUrl, Max, Min } from 'class-validator';

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
}

export const SESSIONS_DEFAULTS = { PORT: '3001', OPS_PORT: '9001', COMMAND_PORT: '4001', DB_SCHEMA: 'sessions' };
