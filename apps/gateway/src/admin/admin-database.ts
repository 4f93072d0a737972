import { parseCommandSecrets } from '@payments/config';
import { PG_SESSION_OPTIONS } from '@payments/database';
import { CommandClient, dataSourceOptions, runMigrationsLocked, ServiceClient } from '@payments/platform';
import { DataSource } from 'typeorm';
import { standardFeeSchedule, type GatewayConfig } from '../config';
import { AccountsRepository } from '../accounts/accounts.repository';
import { MerchantAccounts } from '../merchants/merchant-accounts.service';
import { LedgerClient } from '../balance/ledger.client';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { WalletsRepository } from '../wallets/wallets.repository';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from '../migrations/gateway-schema';

/**
 * Opens the gateway's schema as the service does (same settings, same migrations under the same advisory
 * lock, so it works on a fresh database and next to running gateways), runs `work`, and closes it.
 */
export async function withMerchantAccounts<T>(config: GatewayConfig, work: (accounts: MerchantAccounts, users: AccountsRepository) => Promise<T>): Promise<T> {
  return withDatabase(config, (dataSource) => work(new MerchantAccounts(new MerchantsRepository(dataSource), standardFeeSchedule(config)), new AccountsRepository(dataSource)));
}

/** The wallets' table and the ledger (its commands at LEDGER_URL, as the gateway sends them). */
export async function withWallets<T>(config: GatewayConfig, work: (wallets: WalletsRepository, ledger: LedgerClient) => Promise<T>): Promise<T> {
  const client = new CommandClient({ upstreams: { ledger: config.LEDGER_URL }, connections: 1, answerWindowMs: config.COMMAND_ANSWER_WINDOW_MS, secrets: parseCommandSecrets(config.COMMAND_SECRET) });
  try {
    return await withDatabase(config, (dataSource) => work(new WalletsRepository(dataSource, config.DB_SCHEMA), new LedgerClient(new ServiceClient(client, config.REQUEST_TIMEOUT_MS))));
  } finally {
    await client.close();
  }
}

/**
 * The database read-only, without migrations (the story command reads every owner's schema and writes nothing): a
 * session whose transactions cannot write.
 */
export async function withReadOnlyDatabase<T>(config: GatewayConfig, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const options = dataSourceOptions(config, { entities: [], migrations: [] });
  const dataSource = new DataSource({ ...options, extra: { max: 2, connectionTimeoutMillis: 5000, options: `${PG_SESSION_OPTIONS} -c default_transaction_read_only=on` } });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function withDatabase<T>(config: GatewayConfig, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const options = dataSourceOptions(config, { entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS });
  const dataSource = new DataSource({ ...options, extra: { max: 2, connectionTimeoutMillis: 5000, options: PG_SESSION_OPTIONS } });
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource, config.DB_SCHEMA);
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
