import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { DashboardAccountsModule, SESSION_USERS } from './dashboard-accounts.module';
import { DevelopersController } from './developers/developers.controller';
import { DevelopersModule } from './developers/developers.module';
import { DashboardBalanceController } from './balance/balance.controller';
import { DashboardBalanceModule } from './balance/balance.module';
import { HomeController } from './home/home.controller';
import { OperationsController } from './operations/operations.controller';
import { OperationsModule } from './operations/operations.module';
import { DashboardAuth, type SessionUsers } from './session/dashboard-auth';
import { dashboardOrigins } from './session/csrf';
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
  imports: [GatewayRedisModule, RateLimitModule, DashboardAccountsModule, DevelopersModule, OperationsModule, DashboardBalanceModule],
  providers: [
    { provide: SessionStore, inject: [GATEWAY_REDIS], useFactory: (redis: Redis) => new SessionStore(redis) },
    {
      provide: DashboardAuth,
      inject: [SessionStore, SESSION_USERS, GatewayConfig],
      useFactory: (store: SessionStore, users: SessionUsers, config: GatewayConfig) => new DashboardAuth(store, users, dashboardOrigins(config.PUBLIC_BASE_URL)),
    },
    DashboardExceptionFilter,
  ],
  controllers: [
    SignInController,
    InvitationsController,
    HomeController,
    DevelopersController,
    OperationsController,
    DashboardBalanceController,
    TeamController,
    SecurityController,
    VerificationController,
  ],
  exports: [DashboardAuth, SessionStore, DashboardExceptionFilter],
})
export class DashboardModule {}
