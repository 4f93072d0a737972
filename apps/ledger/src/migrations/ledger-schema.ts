import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { LedgerTables1764300000000 } from './1764300000000-ledger-tables.migration';

/** Every migration of the ledger schema, in order (the service runs them at boot; tests run the same list). */
export const LEDGER_MIGRATIONS = [...MESSAGING_MIGRATIONS, LedgerTables1764300000000];
