import { CommandUrls, ServiceConfig } from '@payments/config';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of the refunds service (environment variables; see README). */
export class RefundsConfig extends ServiceConfig {
  /**
   * Sessions' command port(s): a refund asked before its payment's event arrived asks sessions for the payment, and
   * refunds of provider payments are asked of the provider through sessions.
   */
  @CommandUrls()
  SESSIONS_URL: string[] = ['tcp://127.0.0.1:4001'];

  /** How long a question to sessions may take before the refund answers 503 service_unavailable. */
  @IsInt()
  @Min(100)
  @Max(60000)
  SESSIONS_TIMEOUT_MS: number = 3000;

  /** How often refunds pending at their provider are looked at; each is asked about with a growing pause (5 s to 5 min). */
  @IsInt()
  @Min(100)
  @Max(60000)
  PROVIDER_REFUND_CHECK_INTERVAL_MS: number = 2000;
}

export const REFUNDS_DEFAULTS = { PORT: '3003', OPS_PORT: '9003', COMMAND_PORT: '4003', DB_SCHEMA: 'refunds' };
