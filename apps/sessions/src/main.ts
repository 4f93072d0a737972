import './tracing';
import 'reflect-metadata';
import { bootstrapService } from '@payments/platform';
import { SessionsConfig, SESSIONS_DEFAULTS } from './config';
import { SESSIONS_MIGRATIONS } from './migrations/sessions-schema';
import { SessionsModule } from './sessions.module';

void bootstrapService({
  service: 'sessions',
  imports: [SessionsModule],
  configClass: SessionsConfig,
  defaults: SESSIONS_DEFAULTS,
  database: { migrations: SESSIONS_MIGRATIONS },
  servesCommands: true,
});
