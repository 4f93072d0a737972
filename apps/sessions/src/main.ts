import 'reflect-metadata';
import { MessagingTables1763769600000 } from '@payments/messaging';
import { bootstrapService } from '@payments/platform';
import { SessionsConfig, SESSIONS_DEFAULTS } from './config';
import { SessionsModule } from './sessions.module';

void bootstrapService({
  service: 'sessions',
  imports: [SessionsModule],
  configClass: SessionsConfig,
  defaults: SESSIONS_DEFAULTS,
  database: { migrations: [MessagingTables1763769600000] },
  servesCommands: true,
});
