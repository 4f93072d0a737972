import { ServiceConfig } from '@payments/config';

/** Settings of the refunds service (environment variables; see README). */
export class RefundsConfig extends ServiceConfig {}

export const REFUNDS_DEFAULTS = { PORT: '3003', OPS_PORT: '9003', COMMAND_PORT: '4003', DB_SCHEMA: 'refunds' };
