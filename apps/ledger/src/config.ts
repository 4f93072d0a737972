import { ServiceConfig } from '@payments/config';
import { IsInt, Matches, Max, Min } from 'class-validator';

/** Settings of the ledger service (environment variables; see README). */
export class LedgerConfig extends ServiceConfig {
  /** Where sessions keeps its payments, for `ledger check` to compare the journal with (same database). */
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'SESSIONS_DB_SCHEMA must be a lower-case SQL identifier' })
  SESSIONS_DB_SCHEMA: string = 'sessions';

  /** Where the refunds service keeps its refunds, for `ledger check` to compare the journal with (same database). */
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'REFUNDS_DB_SCHEMA must be a lower-case SQL identifier' })
  REFUNDS_DB_SCHEMA: string = 'refunds';

  /** Where the gateway keeps the merchants, for `ledger adjust` to refuse an account that does not exist (same database). */
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'GATEWAY_DB_SCHEMA must be a lower-case SQL identifier' })
  GATEWAY_DB_SCHEMA: string = 'gateway';

  /** How often one instance runs `ledger check` in the background (ledger_checks_total): hourly by default. */
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  LEDGER_CHECK_INTERVAL_MS: number = 3_600_000;
}

export const LEDGER_DEFAULTS = { PORT: '3002', OPS_PORT: '9002', COMMAND_PORT: '4002', DB_SCHEMA: 'ledger', PROCESS_NICE: '10' };
