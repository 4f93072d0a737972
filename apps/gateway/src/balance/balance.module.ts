import { Module } from '@nestjs/common';
import { GatewayConfig } from '../config';
import { BalanceCache } from './balance-cache';
import { BalanceController } from './balance.controller';
import { LedgerClient } from './ledger.client';

/** The balance routes: authenticated, validated, read from the ledger service (balances briefly kept, BalanceCache). */
@Module({
  controllers: [BalanceController],
  providers: [
    LedgerClient,
    {
      provide: BalanceCache,
      inject: [GatewayConfig, LedgerClient],
      useFactory: (config: GatewayConfig, ledger: LedgerClient) => new BalanceCache(config.BALANCE_CACHE_MS, (scope, caller) => ledger.getBalance(scope, caller)),
    },
  ],
  // The dashboard's balance page reads through the same client and cache as the API.
  exports: [LedgerClient, BalanceCache],
})
export class BalanceModule {}
