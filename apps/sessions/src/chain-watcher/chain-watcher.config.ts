import { IsInt, Max, Min } from 'class-validator';
import { SessionsConfig, SESSIONS_DEFAULTS } from '../config';

/**
 * Settings of the chain watcher process: sessions' own (it writes confirmed transfers through sessions' change
 * path, in sessions' schema) plus how it polls. The chains and tokens are CRYPTO_CHAINS (@payments/chain).
 */
export class ChainWatcherConfig extends SessionsConfig {
  /** How often each chain's head is polled while the watcher is caught up. */
  @IsInt()
  @Min(50)
  @Max(60000)
  CHAIN_POLL_INTERVAL_MS: number = 1000;

  /** Longest pause between retries while the node (or the database) fails; the pause doubles from the poll interval. */
  @IsInt()
  @Min(100)
  @Max(600000)
  CHAIN_RETRY_MAX_MS: number = 30000;

  /** Most blocks one eth_getLogs call asks for (nodes limit the range; public ones often to 1000-10000). */
  @IsInt()
  @Min(1)
  @Max(100000)
  CHAIN_SCAN_RANGE_BLOCKS: number = 500;

  /** Most blocks one step scans and stores in one transaction; a watcher far behind takes several steps. */
  @IsInt()
  @Min(1)
  @Max(1000000)
  CHAIN_MAX_BLOCKS_PER_STEP: number = 5000;

  /** Block hashes kept past the confirmations: a reorg up to confirmations + this is followed exactly. */
  @IsInt()
  @Min(8)
  @Max(10000)
  CHAIN_HASH_MARGIN: number = 64;
}

/** Its own ports (PORT, OPS_PORT) beside sessions'; no command port (it serves no commands). */
export const CHAIN_WATCHER_DEFAULTS = { ...SESSIONS_DEFAULTS, PORT: '3005', OPS_PORT: '9005' };
