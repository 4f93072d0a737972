import { ServiceConfig } from '@payments/config';

/** Settings of the sessions service (environment variables; see README). */
export class SessionsConfig extends ServiceConfig {}

export const SESSIONS_DEFAULTS = { PORT: '3001', DB_SCHEMA: 'sessions' };
