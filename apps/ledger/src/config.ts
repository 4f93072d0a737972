import { ServiceConfig } from '@payments/config';

/** Settings of the ledger service (environment variables; see README). */
export class LedgerConfig extends ServiceConfig {}

export const LEDGER_DEFAULTS = { PORT: '3002', OPS_PORT: '9002', COMMAND_PORT: '4002', DB_SCHEMA: 'ledger' };
