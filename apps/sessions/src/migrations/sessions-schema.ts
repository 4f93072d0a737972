import { MessagingTables1763769600000 } from '@payments/messaging';
import { SessionsTables1763790000000 } from './1763790000000-sessions-tables.migration';

/** Every migration of the sessions schema, in order (the service runs them at boot; tests run the same list). */
export const SESSIONS_MIGRATIONS = [MessagingTables1763769600000, SessionsTables1763790000000];
