import 'reflect-metadata';
import { MessagingTables1763769600000 } from '@payments/messaging';
import { bootstrapService } from '@payments/platform';
import { LedgerConfig, LEDGER_DEFAULTS } from './config';
import { LedgerModule } from './ledger.module';

void bootstrapService({
  service: 'ledger',
  imports: [LedgerModule],
  configClass: LedgerConfig,
  defaults: LEDGER_DEFAULTS,
  database: { migrations: [MessagingTables1763769600000] },
  servesCommands: true,
});
