import type { Environment, Hex } from './ports';

/**
 * seen: in a scanned block, not yet confirmed enough; counted: handed to the sink's `record`; reversed: counted,
 * then its block was dropped by a reorg and it did not come back (handed to `reportReversed`).
 */
export type TransferState = 'seen' | 'counted' | 'reversed';

/** A transfer to a watched address, as the watcher keeps it. */
export interface TrackedTransfer {
  chainId: number;
  txHash: Hex;
  logIndex: number;
  token: Hex;
  from: Hex;
  /** Lower-case. */
  to: Hex;
  units: bigint;
  environment: Environment;
  sessionId: string;
  state: TransferState;
  /** Null while a counted transfer's block is dropped and it has not been seen again. */
  blockNumber: bigint | null;
  blockHash: Hex | null;
  /** Where a counted transfer was when a reorg dropped its block (null otherwise). */
  droppedFrom: bigint | null;
}

/**
 * What the watcher keeps of one chain between steps. `transfers` holds at least every transfer a reorg within
 * the kept hashes can still touch: seen ones, counted ones at or above the lowest kept block, dropped ones.
 */
export interface WatchState {
  chainId: number;
  /** Every block below it has been scanned. */
  nextBlock: bigint;
  /** Hashes of recently scanned blocks, by number. */
  hashes: Map<bigint, Hex>;
  transfers: Map<string, TrackedTransfer>;
}

export function transferKey(t: { chainId: number; txHash: string; logIndex: number }): string {
  return `${t.chainId}:${t.txHash.toLowerCase()}:${t.logIndex}`;
}

export function cloneState(state: WatchState): WatchState {
  return {
    chainId: state.chainId,
    nextBlock: state.nextBlock,
    hashes: new Map(state.hashes),
    transfers: new Map([...state.transfers].map(([key, t]) => [key, { ...t }])),
  };
}
