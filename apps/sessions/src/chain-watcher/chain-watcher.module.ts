import { DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { createChainReader, type CryptoSettings } from '@payments/chain';
import { pgClientConfig } from '@payments/database';
import type { DataSource } from 'typeorm';
import { ChainLocks } from './chain-locks';
import { ChainWatchLoop } from './chain-watch.loop';
import { ChainWatchStore } from './chain-watch.store';
import { ChainWatcherConfig } from './chain-watcher.config';
import type { ConfirmedTransferSink, WatchedAddresses } from './domain/ports';

/** What the watcher reads the addresses from and hands the transfers to (sessions' side). */
export interface ChainWatcherPorts {
  watched: WatchedAddresses;
  sink: ConfirmedTransferSink;
  /** Releases what building the ports opened (command clients, ...). */
  close?(): Promise<void>;
}

export type ChainWatcherPortsFactory = (dataSource: DataSource, config: ChainWatcherConfig) => ChainWatcherPorts;

const PORTS = Symbol('CHAIN_WATCHER_PORTS');
const SETTINGS = Symbol('CRYPTO_SETTINGS');

/** Starts a watch loop per configured chain at boot and stops them (finishing a step in progress) at shutdown. */
class ChainWatchers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChainWatcher');
  private readonly locks: ChainLocks;
  private readonly loops: ChainWatchLoop[];

  constructor(dataSource: DataSource, config: ChainWatcherConfig, settings: CryptoSettings, private readonly ports: ChainWatcherPorts) {
    this.locks = new ChainLocks(pgClientConfig(dataSource, 'chain-watch-locks'));
    const store = new ChainWatchStore(dataSource, config.DB_SCHEMA);
    const scan = { hashMargin: config.CHAIN_HASH_MARGIN, rangeBlocks: config.CHAIN_SCAN_RANGE_BLOCKS, maxBlocksPerStep: config.CHAIN_MAX_BLOCKS_PER_STEP };
    this.loops = settings.chains.map(
      (chain) =>
        new ChainWatchLoop({
          chain,
          reader: createChainReader(chain, { maxBlockRange: config.CHAIN_SCAN_RANGE_BLOCKS }),
          watched: ports.watched,
          sink: ports.sink,
          store,
          locks: this.locks,
          settings: scan,
          pollIntervalMs: config.CHAIN_POLL_INTERVAL_MS,
          retryMaxMs: config.CHAIN_RETRY_MAX_MS,
        }),
    );
    if (this.loops.length === 0) this.logger.warn('CRYPTO_CHAINS names no chain: nothing to watch');
  }

  onApplicationBootstrap(): void {
    for (const loop of this.loops) loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.locks.close();
    await this.ports.close?.();
  }
}

@Module({})
export class ChainWatcherModule {
  static forRoot(settings: CryptoSettings, ports: ChainWatcherPortsFactory): DynamicModule {
    return {
      module: ChainWatcherModule,
      providers: [
        { provide: SETTINGS, useValue: settings },
        { provide: PORTS, inject: [getDataSourceToken(), ChainWatcherConfig], useFactory: ports },
        {
          provide: ChainWatchers,
          inject: [getDataSourceToken(), ChainWatcherConfig, SETTINGS, PORTS],
          useFactory: (dataSource: DataSource, config: ChainWatcherConfig, s: CryptoSettings, p: ChainWatcherPorts) => new ChainWatchers(dataSource, config, s, p),
        },
      ],
    };
  }

  constructor(@Inject(ChainWatchers) readonly watchers: unknown) {}
}
