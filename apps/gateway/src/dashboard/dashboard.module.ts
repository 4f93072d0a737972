import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { DashboardAccountsModule, SESSION_USERS } from './dashboard-accounts.module';
import { DevelopersController } from './developers/developers.controller';
import { DevelopersModule } from './developers/developers.module';
import { HomeController } from './home/home.controller';
import { DashboardAuth, type SessionUsers } from './session/dashboard-auth';
import { SessionStore } from './session/session-store';
import { InvitationsController } from './sign-in/invitations.controller';
import { SignInController } from './sign-in/sign-in.controller';
import { SecurityController } from './security/security.controller';
import { TeamController } from './team/team.controller';
import { VerificationController } from './verification/verification.controller';
import { DashboardExceptionFilter } from './web/dashboard-exception.filter';

/**
 * The merchant dashboard (DESIGN §8): server-rendered pages under /dashboard on the same services and rules as the
 * API. Sessions and CSRF live here, on the dashboard's own routes.
 */
@Module({
  imports: [GatewayRedisModule, DashboardAccountsModule, DevelopersModule],
  providers: [
    { provide: SessionStore, inject: [GATEWAY_REDIS], useFactory: (redis: Redis) => new SessionStore(redis) },
    {
      provide: DashboardAuth,
      inject: [SessionStore, SESSION_USERS, GatewayConfig],
      useFactory: (store: SessionStore, users: SessionUsers, config: GatewayConfig) => new DashboardAuth(store, users, [new URL(config.PUBLIC_BASE_URL).origin]),
    },
    DashboardExceptionFilter,
  ],
  controllers: [SignInController, HomeController, DevelopersController, TeamController, InvitationsController, SecurityController, VerificationController],
  exports: [DashboardAuth, SessionStore, DashboardExceptionFilter],
})
export class DashboardModule {}
