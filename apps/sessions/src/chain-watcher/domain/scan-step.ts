import type { ChainReader, ChainTransfer, ConfirmedTransfer, CryptoChain, Hex, WatchedAddresses } from './ports';
import { cloneState, transferKey, type TrackedTransfer, type WatchState } from './watch-state';
import { tokenUnitsToCents } from '@payments/chain';

export interface ScanSettings {
  /** Blocks past the confirmations whose hashes are kept too: how deep a reorg can be and still be followed. */
  hashMargin: number;
  /** Most blocks one eth_getLogs call covers. */
  rangeBlocks: number;
  /** Most blocks one step scans (its writes are one transaction); a watcher behind takes several steps. */
  maxBlocksPerStep: number;
}

export const DEFAULT_SCAN_SETTINGS: ScanSettings = { hashMargin: 64, rangeBlocks: 500, maxBlocksPerStep: 5000 };

/** How many recent block hashes are kept for a chain. */
export function hashWindow(chain: CryptoChain, settings: ScanSettings): number {
  return chain.confirmations + settings.hashMargin;
}

export interface WatchNote {
  level: 'info' | 'warn' | 'error';
  message: string;
  data: Record<string, unknown>;
}

export interface ReorgSeen {
  /** The highest block the stored hashes and the chain still agree on (-1: none kept agrees). */
  commonBlock: bigint;
  /** Stored blocks the chain no longer has. */
  droppedBlocks: number;
  /** Deeper than the kept hashes: followed as far as they go. */
  deep: boolean;
}

export interface StepResult {
  /** The state after the step, to be stored in one transaction (with `previous.nextBlock` as its fence). */
  state: WatchState;
  head: bigint;
  /** The highest block scanned now (null: nothing new to scan). */
  scannedTo: bigint | null;
  /** True when the scan reached the head (the loop waits for the next poll instead of stepping again). */
  caughtUp: boolean;
  reorg: ReorgSeen | null;
  /** Hand to the sink's `record` before the state is stored. */
  record: ConfirmedTransfer[];
  /** Hand to the sink's `reportReversed` before the state is stored. */
  reverse: ConfirmedTransfer[];
  notes: WatchNote[];
}

/** The chain changed while a step read it (a reorg mid-step): nothing of the step is kept; the next one re-reads. */
export class ChainMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainMovedError';
  }
}

/** A first step starts near the head: no address was handed out before the chain was configured. */
export function initialState(chainId: number, head: bigint, window: number): WatchState {
  const start = head - BigInt(window) + 1n;
  return { chainId, nextBlock: start > 0n ? start : 0n, hashes: new Map(), transfers: new Map() };
}

/**
 * One pass over one chain: find a reorg among the kept hashes and follow it, scan the next blocks for transfers
 * to the watched addresses, count the confirmed ones, report counted ones a reorg took back. Reads the chain and
 * the watch list only; the caller tells the sink and stores the resulting state.
 */
export async function scanStep(input: {
  chain: CryptoChain;
  reader: ChainReader;
  watched: WatchedAddresses;
  /** Null on a chain's first step. */
  state: WatchState | null;
  settings?: ScanSettings;
}): Promise<StepResult> {
  const { chain, reader } = input;
  const settings = input.settings ?? DEFAULT_SCAN_SETTINGS;
  const window = hashWindow(chain, settings);
  const notes: WatchNote[] = [];
  // The head before the watch list: a transfer in a block up to this head was sent after its address was handed
  // out, so the list read next already has the address. Its hash too, when there is something to scan: the blocks up
  // to it must be the same at the end of the step (a reorg after the logs were read, or after the list was, could
  // bring in a transfer neither saw, and the block's new hash would then be kept as scanned).
  const head = await reader.head();
  const scanning = input.state === null || input.state.nextBlock <= head;
  const headHash = scanning ? await reader.blockHash(head) : null;
  if (scanning && headHash === null) throw new ChainMovedError(`block ${head} is gone`);
  const watched = await input.watched.forChain(chain);
  const state = input.state ? cloneState(input.state) : initialState(chain.chainId, head, window);

  const reorg = await findReorg(reader, state);
  if (reorg) {
    dropBlocksAbove(state, reorg.commonBlock, notes);
    const data = { chain: chain.name, commonBlock: reorg.commonBlock.toString(), droppedBlocks: reorg.droppedBlocks };
    if (reorg.deep) notes.push({ level: 'error', message: 'reorg deeper than the kept block hashes: rescanning from the oldest kept block', data });
    else notes.push({ level: 'warn', message: 'reorg: rescanning from the last common block', data });
  }

  const from = state.nextBlock;
  let scannedTo: bigint | null = null;
  const record: ConfirmedTransfer[] = [];
  const reverse: ConfirmedTransfer[] = [];
  if (from <= head) {
    const tip = minBig(head, from + BigInt(settings.maxBlocksPerStep) - 1n);
    const recipients = [...watched.keys()] as Hex[];
    const tokens = chain.tokens.map((t) => t.address);
    const logs: ChainTransfer[] = [];
    if (recipients.length > 0 && tokens.length > 0) {
      for (let start = from; start <= tip; start += BigInt(settings.rangeBlocks)) {
        const end = minBig(tip, start + BigInt(settings.rangeBlocks) - 1n);
        logs.push(...(await reader.transfersTo(tokens, recipients, start, end)));
      }
    }
    const hashes = await readHashes(reader, state, from, tip, window, logs);
    if (headHash !== null) {
      const headNow = tip === head ? hashes.get(tip)! : ((await reader.blockHash(head))?.toLowerCase() ?? null);
      if (headNow !== headHash.toLowerCase()) throw new ChainMovedError(`block ${head} changed during the step`);
    }
    for (const [number, hash] of hashes) state.hashes.set(number, hash);
    for (const log of logs) takeLog(state, log, watched, notes, chain.name);
    state.nextBlock = tip + 1n;
    scannedTo = tip;
  }

  const tip = state.nextBlock - 1n;
  for (const t of state.transfers.values()) {
    if (t.state === 'seen' && t.blockNumber !== null && tip - t.blockNumber + 1n >= BigInt(chain.confirmations)) {
      t.state = 'counted';
      record.push(confirmed(chain, t));
    } else if (t.state === 'counted' && t.blockNumber === null && t.droppedFrom !== null && tip - t.droppedFrom + 1n >= BigInt(chain.confirmations)) {
      // The new chain is as deep past where it was as the confirmations ask, without it: taken back.
      t.state = 'reversed';
      reverse.push(confirmed(chain, t, t.droppedFrom));
      notes.push({
        level: 'error',
        message: 'a counted transfer was reversed by a reorg: reported, not counted again',
        data: { chain: chain.name, txHash: t.txHash, logIndex: t.logIndex, droppedFrom: t.droppedFrom.toString(), sessionId: t.sessionId, units: t.units.toString() },
      });
    }
  }
  const lowestKept = state.nextBlock - BigInt(window);
  for (const number of state.hashes.keys()) if (number < lowestKept) state.hashes.delete(number);

  return { state, head, scannedTo, caughtUp: state.nextBlock > head, reorg, record, reverse, notes };
}

/** Compares the kept hashes with the chain from the newest down; the first that agrees is the common block. */
async function findReorg(reader: ChainReader, state: WatchState): Promise<ReorgSeen | null> {
  const numbers = [...state.hashes.keys()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let dropped = 0;
  for (const number of numbers) {
    const onChain = await reader.blockHash(number);
    if (onChain !== null && onChain.toLowerCase() === state.hashes.get(number)!.toLowerCase()) {
      return dropped === 0 ? null : { commonBlock: number, droppedBlocks: dropped, deep: false };
    }
    dropped++;
  }
  if (numbers.length === 0) return null;
  // None agrees: follow it as far as the hashes go (the oldest kept block is scanned again).
  return { commonBlock: numbers[numbers.length - 1]! - 1n, droppedBlocks: dropped, deep: true };
}

/** Forgets what was read above `common`: hashes, seen transfers; counted ones wait to be seen again (or reversed). */
function dropBlocksAbove(state: WatchState, common: bigint, notes: WatchNote[]): void {
  for (const number of [...state.hashes.keys()]) if (number > common) state.hashes.delete(number);
  for (const [key, t] of state.transfers) {
    if (t.blockNumber === null || t.blockNumber <= common) continue;
    if (t.state === 'seen') {
      state.transfers.delete(key);
    } else if (t.state === 'counted') {
      notes.push({
        level: 'warn',
        message: 'the block of a counted transfer was dropped by a reorg: waiting for it to be included again',
        data: { txHash: t.txHash, logIndex: t.logIndex, block: t.blockNumber.toString(), sessionId: t.sessionId },
      });
      t.droppedFrom = t.blockNumber;
      t.blockNumber = null;
      t.blockHash = null;
    } else {
      t.blockNumber = null;
      t.blockHash = null;
    }
  }
  if (state.nextBlock > common + 1n) state.nextBlock = common + 1n;
}

/**
 * The hashes of the newly scanned blocks the window keeps, read from the top down, then the block below the
 * range (it must still be the one kept) and the top again: a reorg during the step changes one of them, and
 * then nothing read in the step is kept. Each log in a kept block must carry that block's hash.
 */
async function readHashes(reader: ChainReader, state: WatchState, from: bigint, tip: bigint, window: number, logs: ChainTransfer[]): Promise<Map<bigint, Hex>> {
  const hashes = new Map<bigint, Hex>();
  const lowest = maxBig(from, tip - BigInt(window) + 1n);
  for (let n = tip; n >= lowest; n--) {
    const hash = await reader.blockHash(n);
    if (hash === null) throw new ChainMovedError(`block ${n} is gone`);
    hashes.set(n, hash.toLowerCase() as Hex);
  }
  const below = state.hashes.get(from - 1n);
  if (below !== undefined) {
    const now = await reader.blockHash(from - 1n);
    if (now === null || now.toLowerCase() !== below.toLowerCase()) throw new ChainMovedError(`block ${from - 1n} changed during the step`);
  }
  const top = await reader.blockHash(tip);
  if (top === null || top.toLowerCase() !== hashes.get(tip)) throw new ChainMovedError(`block ${tip} changed during the step`);
  for (const log of logs) {
    const kept = hashes.get(log.blockNumber);
    if (kept !== undefined && kept !== log.blockHash.toLowerCase()) throw new ChainMovedError(`block ${log.blockNumber} changed during the step`);
  }
  return hashes;
}

function takeLog(state: WatchState, log: ChainTransfer, watched: ReadonlyMap<string, { environment: 'test' | 'live'; sessionId: string }>, notes: WatchNote[], chainName: string): void {
  const to = log.to.toLowerCase() as Hex;
  const owner = watched.get(to);
  if (!owner) return;
  const key = transferKey(log);
  // A key names a log's place in its block, which a reorg may give to another log of the same transaction (one
  // paying two of our addresses, moved one log further): the entry under it is this transfer only if it is alike.
  const atKey = state.transfers.get(key);
  const known = atKey && sameTransfer(atKey, log, to) ? atKey : droppedCopyOf(state, log, to);
  const blockHash = log.blockHash.toLowerCase() as Hex;
  if (!known && atKey) {
    // Another transfer's key, and no dropped copy of this one: never written over (it would lose that transfer).
    notes.push({ level: 'error', message: 'a transfer at the place of another one of its transaction, with no copy of it dropped: left for an operator', data: { chain: chainName, txHash: log.txHash, logIndex: log.logIndex } });
    return;
  }
  if (!known) {
    state.transfers.set(key, {
      chainId: log.chainId,
      txHash: log.txHash.toLowerCase() as Hex,
      logIndex: log.logIndex,
      token: log.token.toLowerCase() as Hex,
      from: log.from.toLowerCase() as Hex,
      to,
      units: log.units,
      environment: owner.environment,
      sessionId: owner.sessionId,
      state: 'seen',
      blockNumber: log.blockNumber,
      blockHash,
      droppedFrom: null,
    });
    return;
  }
  const data = { chain: chainName, txHash: known.txHash, logIndex: known.logIndex, block: log.blockNumber.toString(), sessionId: known.sessionId };
  if (known.state === 'counted' && known.blockNumber === null) {
    notes.push({ level: 'info', message: 'a counted transfer was included again after a reorg: it stays counted once', data });
  } else if (known.state === 'reversed') {
    // The money is at the address again: handed to sessions again once confirmed, under the same key. Sessions
    // counts it once: an unpaid intent stopped counting it at the reversal, a paid one kept it counted.
    notes.push({ level: 'error', message: 'a transfer reported reversed is in the chain again: recorded again once confirmed (an operator may have settled its reversal)', data });
    known.state = 'seen';
  }
  // The same transfer in another block (a reorg moved it), never a new one.
  known.blockNumber = log.blockNumber;
  known.blockHash = blockHash;
  known.droppedFrom = null;
}

/**
 * A counted transfer whose block a reorg dropped, included again at another place in a block: the same transaction
 * (hash) has the same logs in the same order, but a log index counts the logs of the whole block, so it may differ.
 * Matched by hash, token, recipient and units, it keeps the key it was counted under; a new key would count it
 * twice (sessions keys transfers by it).
 */
function droppedCopyOf(state: WatchState, log: ChainTransfer, to: Hex): TrackedTransfer | undefined {
  for (const t of state.transfers.values()) {
    if (t.blockNumber === null && t.state !== 'seen' && sameTransfer(t, log, to)) return t;
  }
  return undefined;
}

/** The same money: transaction, token, recipient and units (its place in the block aside). */
function sameTransfer(t: TrackedTransfer, log: ChainTransfer, to: Hex): boolean {
  return t.txHash === log.txHash.toLowerCase() && t.token === log.token.toLowerCase() && t.to === to && t.units === log.units;
}

function confirmed(chain: CryptoChain, t: TrackedTransfer, block?: bigint): ConfirmedTransfer {
  const token = chain.tokens.find((candidate) => candidate.address.toLowerCase() === t.token);
  if (!token) throw new Error(`token ${t.token} is not configured on chain ${chain.name}`);
  return {
    environment: t.environment,
    sessionId: t.sessionId,
    chainId: chain.chainId,
    chainName: chain.name,
    token: token.address,
    tokenSymbol: token.symbol,
    txHash: t.txHash,
    logIndex: t.logIndex,
    blockNumber: block ?? t.blockNumber!,
    units: t.units,
    cents: tokenUnitsToCents(t.units, token.decimals).cents,
  };
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
