import { InboxPruningIndex1763856000000 } from './inbox-pruning.migration';
import { MessagingTables1763769600000 } from './messaging-tables.migration';
import { OutboxParked1764900000000 } from './outbox-parked.migration';
import { OutboxPlainText1764700000000 } from './outbox-plain-text.migration';

/** Every migration of the outbox and inbox tables, in order: services list these before their own. */
export const MESSAGING_MIGRATIONS = [MessagingTables1763769600000, InboxPruningIndex1763856000000, OutboxPlainText1764700000000, OutboxParked1764900000000];
