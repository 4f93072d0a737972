import { Module } from '@nestjs/common';
import { BalanceController } from './balance.controller';
import { LedgerClient } from './ledger.client';

/** The balance routes: authenticated, validated, read from the ledger service. */
@Module({ controllers: [BalanceController], providers: [LedgerClient] })
export class BalanceModule {}
