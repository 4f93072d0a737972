import { PG_SESSION_OPTIONS } from '@payments/database';
import { dataSourceOptions, runMigrationsLocked } from '@payments/platform';
import { DataSource } from 'typeorm';
import { standardFeeSchedule, type GatewayConfig } from '../config';
import { AccountsRepository } from '../accounts/accounts.repository';
import { MerchantAccounts } from '../merchants/merchant-accounts.service';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from '../migrations/gateway-schema';

/**
 * Opens the gateway's schema as the service does (same settings, same migrations under the same advisory
 * lock, so it works on a fresh database and next to running gateways), runs `work`, and closes it.
 */
export async function withMerchantAccounts<T>(config: GatewayConfig, work: (accounts: MerchantAccounts, users: AccountsRepository) => Promise<T>): Promise<T> {
  const options = dataSourceOptions(config, { entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS });
  const dataSource = new DataSource({ ...options, extra: { max: 2, connectionTimeoutMillis: 5000, options: PG_SESSION_OPTIONS } });
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource, config.DB_SCHEMA);
    return await work(new MerchantAccounts(new MerchantsRepository(dataSource), standardFeeSchedule(config)), new AccountsRepository(dataSource));
  } finally {
    await dataSource.destroy();
  }
}
