import { ServiceConfig } from '@payments/config';
import { Matches } from 'class-validator';

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
}

export const LEDGER_DEFAULTS = { PORT: '3002', OPS_PORT: '9002', COMMAND_PORT: '4002', DB_SCHEMA: 'ledger', PROCESS_NICE: '10' };
