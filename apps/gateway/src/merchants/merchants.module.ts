import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayConfig, standardFeeSchedule } from '../config';
import { MerchantAccounts } from './merchant-accounts.service';
import { MerchantsRepository } from './merchants.repository';

/** Merchants and API keys in the gateway's schema (entities and migrations: migrations/gateway-schema.ts). */
@Module({
  providers: [
    { provide: MerchantsRepository, inject: [DataSource], useFactory: (dataSource: DataSource) => new MerchantsRepository(dataSource) },
    {
      provide: MerchantAccounts,
      inject: [MerchantsRepository, GatewayConfig],
      useFactory: (repository: MerchantsRepository, config: GatewayConfig) => new MerchantAccounts(repository, standardFeeSchedule(config), { autoApproveVerification: config.VERIFICATION_AUTO_APPROVE }),
    },
  ],
  exports: [MerchantsRepository, MerchantAccounts],
})
export class MerchantsModule {}
