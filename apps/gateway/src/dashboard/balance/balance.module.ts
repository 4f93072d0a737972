import { Module } from '@nestjs/common';
import { BalanceModule } from '../../balance/balance.module';

/** The balance page reads through the API's ledger client and balance cache. */
@Module({ imports: [BalanceModule], exports: [BalanceModule] })
export class DashboardBalanceModule {}
