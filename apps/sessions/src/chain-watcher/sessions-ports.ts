import type { DataSource } from 'typeorm';
import { createSessions } from '../sessions.composition';
import { SystemClock } from '../shared/clock';
import { SessionsDatabase } from '../shared/sessions-database';
import type { WalletLedger } from '../wallets/wallet-ledger';
import type { ChainWatcherConfig } from './chain-watcher.config';
import type { ChainWatcherPorts } from './chain-watcher.module';

/** The watcher pays from no wallet: sessions' composition gets a ledger that is never called here. */
const NO_LEDGER: WalletLedger = {
  pay: () => Promise.reject(new Error('the chain watcher makes no wallet payments')),
  topUp: () => Promise.reject(new Error('the chain watcher makes no wallet top-ups')),
};

/** Sessions' own ports: the addresses from crypto_addresses, transfers through the intents' change path. */
export function sessionsPorts(dataSource: DataSource, config: ChainWatcherConfig): ChainWatcherPorts {
  const sessions = createSessions(new SessionsDatabase(dataSource, config), config, new SystemClock(), NO_LEDGER);
  return { watched: sessions.watchedAddresses, sink: sessions.transferSink };
}
