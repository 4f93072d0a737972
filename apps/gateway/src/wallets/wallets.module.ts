import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../accounts/password-hasher';
import { BalanceModule } from '../balance/balance.module';
import { GatewayConfig } from '../config';
import { dashboardOrigins } from '../dashboard/session/csrf';
import { MailOutbox } from '../mail/mail-outbox';
import { MailModule } from '../mail/mail.module';
import { MerchantsModule } from '../merchants/merchants.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { GATEWAY_REDIS, GatewayRedisModule } from '../redis/gateway-redis.module';
import { SessionsClientModule } from '../sessions-client/sessions-client.module';
import { OpaqueSessionStore } from '../web-session/opaque-session-store';
import { WALLET_IDLE_LIFETIME_MS, type WalletSession } from './domain/wallet-session';
import { WalletAuth } from './wallet-auth';
import { WalletController } from './wallet.controller';
import { WalletSignIn } from './wallet-sign-in';
import { WalletsRepository } from './wallets.repository';

/** Customer wallets (`togo`): sign-in by e-mailed code, the wallet page; the checkout pays with what it exports. */
@Module({
  imports: [GatewayRedisModule, MailModule, BalanceModule, SessionsClientModule, MerchantsModule, RateLimitModule],
  controllers: [WalletController],
  providers: [
    { provide: WalletsRepository, inject: [DataSource, GatewayConfig], useFactory: (dataSource: DataSource, config: GatewayConfig) => new WalletsRepository(dataSource, config.DB_SCHEMA) },
    {
      provide: WalletSignIn,
      inject: [WalletsRepository, MailOutbox],
      useFactory: (repository: WalletsRepository, outbox: MailOutbox) => new WalletSignIn(repository, new PasswordHasher(), outbox),
    },
    {
      provide: WalletAuth,
      inject: [GATEWAY_REDIS, GatewayConfig],
      useFactory: (redis: Redis, config: GatewayConfig) =>
        new WalletAuth(new OpaqueSessionStore<WalletSession>(redis, 'wallet:session', WALLET_IDLE_LIFETIME_MS), dashboardOrigins(config.PUBLIC_BASE_URL)),
    },
  ],
  exports: [WalletAuth, WalletsRepository, BalanceModule],
})
export class WalletsModule {}
