import 'reflect-metadata';
import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { bootstrapService } from '@payments/platform';
import { LedgerConfig, LEDGER_DEFAULTS } from './config';
import { LedgerModule } from './ledger.module';

void bootstrapService({
  service: 'ledger',
  imports: [LedgerModule],
  configClass: LedgerConfig,
  defaults: LEDGER_DEFAULTS,
  database: { migrations: MESSAGING_MIGRATIONS },
  servesCommands: true,
});
