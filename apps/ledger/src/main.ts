import './tracing';
import 'reflect-metadata';
import { bootstrapService } from '@payments/platform';
import { LedgerConfig, LEDGER_DEFAULTS } from './config';
import { LedgerModule } from './ledger.module';
import { LEDGER_MIGRATIONS } from './migrations/ledger-schema';

void bootstrapService({
  service: 'ledger',
  imports: [LedgerModule],
  configClass: LedgerConfig,
  defaults: LEDGER_DEFAULTS,
  database: { migrations: LEDGER_MIGRATIONS },
  servesCommands: true,
});
