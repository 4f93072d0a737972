// What the chain watcher reads and whom it tells. The chain types are those of @payments/chain (the watcher only
// needs their shape); the two ports are implemented by sessions' crypto side.
import type { ChainReader, ChainTransfer, CryptoChain } from '@payments/chain';

export type { ChainReader, ChainTransfer, CryptoChain };
export type Hex = `0x${string}`;
export type Environment = 'test' | 'live';

/** Whose a watched address is. */
export interface AddressOwner {
  environment: Environment;
  sessionId: string;
}

/** The deposit addresses to watch on a chain: lower-case address → its session. */
export interface WatchedAddresses {
  forChain(chain: CryptoChain): Promise<ReadonlyMap<string, AddressOwner>>;
}

/** A transfer to a session's address with the chain's confirmations (or one such transfer a reorg took back). */
export interface ConfirmedTransfer {
  environment: Environment;
  sessionId: string;
  chainId: number;
  chainName: string;
  token: Hex;
  tokenSymbol: string;
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  units: bigint;
  cents: bigint;
}

/**
 * Sessions' change path. `record` is idempotent by (chainId, txHash, logIndex): the watcher calls it before it
 * commits the transfer as counted, so a crash in between calls it again with the same key. `reportReversed` is
 * called the same way (so it should be idempotent by key too): a transfer already recorded whose block a reorg
 * dropped and which did not come back.
 */
export interface ConfirmedTransferSink {
  record(transfer: ConfirmedTransfer): Promise<void>;
  reportReversed(transfer: ConfirmedTransfer): Promise<void>;
}
