import 'reflect-metadata';
import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { bootstrapService } from '@payments/platform';
import { RefundsConfig, REFUNDS_DEFAULTS } from './config';
import { RefundsModule } from './refunds.module';

void bootstrapService({
  service: 'refunds',
  imports: [RefundsModule],
  configClass: RefundsConfig,
  defaults: REFUNDS_DEFAULTS,
  database: { migrations: MESSAGING_MIGRATIONS },
  servesCommands: true,
});
