import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { LedgerTables1764300000000 } from './1764300000000-ledger-tables.migration';
import { JournalChecksPerStatement1764400000000 } from './1764400000000-journal-checks-per-statement.migration';
import { Wallets1764500000000 } from './1764500000000-wallets.migration';

/** Every migration of the ledger schema, in order (the service runs them at boot; tests run the same list). */
export const LEDGER_MIGRATIONS = [...MESSAGING_MIGRATIONS, LedgerTables1764300000000, JournalChecksPerStatement1764400000000, Wallets1764500000000];
