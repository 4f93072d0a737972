import './tracing';
import 'reflect-metadata';
import { bootstrapService } from '@payments/platform';
import { RefundsConfig, REFUNDS_DEFAULTS } from './config';
import { REFUNDS_MIGRATIONS } from './migrations/refunds-schema';
import { RefundsModule } from './refunds.module';

void bootstrapService({
  service: 'refunds',
  imports: [RefundsModule],
  configClass: RefundsConfig,
  defaults: REFUNDS_DEFAULTS,
  database: { migrations: REFUNDS_MIGRATIONS },
  servesCommands: true,
});
