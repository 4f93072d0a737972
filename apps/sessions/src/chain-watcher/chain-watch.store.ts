import { executePrepared, qualified } from '@payments/database';
import type { DataSource, EntityManager } from 'typeorm';
import type { Environment, Hex } from './domain/ports';
import { transferKey, type TrackedTransfer, type WatchState } from './domain/watch-state';

/** A chain's stored state and the step count it was read at (the fence of the next save). */
export interface StoredWatch {
  state: WatchState;
  steps: bigint;
}

/** Another instance stored a step of this chain since it was read (it took the chain over): this step is void. */
export class WatchFencedError extends Error {
  constructor(chainId: number) {
    super(`chain ${chainId}: another instance stored a step first`);
    this.name = 'WatchFencedError';
  }
}

interface TransferRow {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  token: string;
  from_address: string;
  to_address: string;
  units: string;
  environment: Environment;
  session_id: string;
  state: TrackedTransfer['state'];
  block_number: string | null;
  block_hash: string | null;
  dropped_from: string | null;
}

/** The watcher's tables in sessions' schema: chain_watch_progress, chain_watch_blocks, chain_watch_transfers. */
export class ChainWatchStore {
  private readonly progress: string;
  private readonly blocks: string;
  private readonly transfers: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.progress = qualified(schema, 'chain_watch_progress');
    this.blocks = qualified(schema, 'chain_watch_blocks');
    this.transfers = qualified(schema, 'chain_watch_transfers');
  }

  /**
   * What a step needs of a chain: its progress, kept hashes, and the transfers a reorg can still touch (seen,
   * dropped, or at or above the lowest block whose hash is kept). Null before the chain's first step.
   */
  async load(chainId: number, window: number): Promise<StoredWatch | null> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const [progress] = (await manager.query(`SELECT next_block::text, steps::text FROM ${this.progress} WHERE chain_id = $1`, [chainId])) as Array<{ next_block: string; steps: string }>;
      if (!progress) return null;
      const nextBlock = BigInt(progress.next_block);
      const hashes = (await manager.query(`SELECT block_number::text, block_hash FROM ${this.blocks} WHERE chain_id = $1`, [chainId])) as Array<{ block_number: string; block_hash: Hex }>;
      const rows = (await manager.query(
        `SELECT chain_id, tx_hash, log_index, token, from_address, to_address, units::text, environment, session_id, state,
                block_number::text, block_hash, dropped_from::text
           FROM ${this.transfers}
          WHERE chain_id = $1 AND (state = 'seen' OR block_number IS NULL OR block_number >= $2)`,
        [chainId, (nextBlock - BigInt(window)).toString()],
      )) as TransferRow[];
      const state: WatchState = {
        chainId,
        nextBlock,
        hashes: new Map(hashes.map((h) => [BigInt(h.block_number), h.block_hash])),
        transfers: new Map(rows.map((row) => [transferKey({ chainId, txHash: row.tx_hash, logIndex: row.log_index }), fromRow(row)])),
      };
      return { state, steps: BigInt(progress.steps) };
    });
  }

  /**
   * Stores a step's result atomically (one statement when only blocks moved on, else one transaction), fenced by
   * the step count it was read at: a step of an instance that lost the chain meanwhile changes nothing. Writes only
   * what changed between `before` and `after`. Returns what `load` would now read (`window` as given to it), so the
   * instance that stored it can step on without reading it back.
   */
  async save(chainName: string, before: StoredWatch | null, after: WatchState, head: bigint, window: number): Promise<StoredWatch> {
    const old = before?.state;
    const goneHashes = [...(old?.hashes ?? [])].filter(([n, h]) => after.hashes.get(n) !== h).map(([n]) => n);
    const newHashes = [...after.hashes].filter(([n, h]) => old?.hashes.get(n) !== h);
    const goneTransfers = [...(old?.transfers ?? [])].filter(([key]) => !after.transfers.has(key)).map(([, t]) => t);
    const changedTransfers = [...after.transfers].filter(([key, t]) => {
      const was = old?.transfers.get(key);
      return !was || !sameTransfer(was, t);
    });
    const replaced = new Set(newHashes.map(([n]) => n));
    if (before !== null && goneTransfers.length === 0 && changedTransfers.length === 0 && !goneHashes.some((n) => replaced.has(n))) {
      // A step that moved on by blocks and touched no transfer (nearly every step): one statement.
      await this.advanceWithHashes(chainName, before, after, head, goneHashes, newHashes);
    } else {
      await this.dataSource.transaction(async (manager) => {
        await this.advance(manager, chainName, before, after, head);
        if (goneHashes.length > 0) {
          await manager.query(`DELETE FROM ${this.blocks} WHERE chain_id = $1 AND block_number = ANY($2::bigint[])`, [after.chainId, goneHashes.map(String)]);
        }
        if (newHashes.length > 0) {
          await manager.query(
            `INSERT INTO ${this.blocks} (chain_id, block_number, block_hash) SELECT $1, n, h FROM unnest($2::bigint[], $3::text[]) AS t(n, h)`,
            [after.chainId, newHashes.map(([n]) => n.toString()), newHashes.map(([, h]) => h)],
          );
        }
        for (const t of goneTransfers) await manager.query(`DELETE FROM ${this.transfers} WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, [t.chainId, t.txHash, t.logIndex]);
        for (const [, t] of changedTransfers) await this.upsert(manager, t);
      });
    }
    return { state: loadable(after, window), steps: (before?.steps ?? 0n) + 1n };
  }

  /**
   * The fenced advance and the kept hashes' change as one statement (its parts see one snapshot, so a block number
   * both dropped and added, as in a reorg, goes the transaction's way instead). Nothing is written when fenced.
   */
  private async advanceWithHashes(chainName: string, before: StoredWatch, after: WatchState, head: bigint, gone: bigint[], added: Array<[bigint, string]>): Promise<void> {
    const [row] = (await executePrepared(this.dataSource, {
      text: `WITH advanced AS (
         UPDATE ${this.progress} SET next_block = $3, head_block = $4, chain_name = $5, steps = steps + 1, updated_at = now()
          WHERE chain_id = $1 AND steps = $2 RETURNING chain_id
       ), gone AS (
         DELETE FROM ${this.blocks} WHERE chain_id = $1 AND block_number = ANY($6::bigint[]) AND EXISTS (SELECT 1 FROM advanced)
       ), added AS (
         INSERT INTO ${this.blocks} (chain_id, block_number, block_hash)
         SELECT $1, n, h FROM unnest($7::bigint[], $8::text[]) AS t(n, h) WHERE EXISTS (SELECT 1 FROM advanced)
       )
       SELECT count(*)::int AS advanced FROM advanced`,
      params: [
        after.chainId,
        before.steps.toString(),
        after.nextBlock.toString(),
        head.toString(),
        chainName,
        gone.map(String),
        added.map(([n]) => n.toString()),
        added.map(([, h]) => h),
      ],
    })) as Array<{ advanced: number }>;
    if (row?.advanced !== 1) throw new WatchFencedError(after.chainId);
  }

  private async advance(manager: EntityManager, chainName: string, before: StoredWatch | null, after: WatchState, head: bigint): Promise<void> {
    if (before === null) {
      const inserted = (await manager.query(
        `INSERT INTO ${this.progress} (chain_id, chain_name, next_block, head_block, steps) VALUES ($1, $2, $3, $4, 1) ON CONFLICT (chain_id) DO NOTHING RETURNING chain_id`,
        [after.chainId, chainName, after.nextBlock.toString(), head.toString()],
      )) as unknown[];
      if (inserted.length === 0) throw new WatchFencedError(after.chainId);
      return;
    }
    const [, count] = (await manager.query(
      `UPDATE ${this.progress} SET next_block = $3, head_block = $4, chain_name = $5, steps = steps + 1, updated_at = now() WHERE chain_id = $1 AND steps = $2`,
      [after.chainId, before.steps.toString(), after.nextBlock.toString(), head.toString(), chainName],
    )) as [unknown[], number];
    if (count !== 1) throw new WatchFencedError(after.chainId);
  }

  private async upsert(manager: EntityManager, t: TrackedTransfer): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.transfers} AS t (chain_id, tx_hash, log_index, token, from_address, to_address, units, environment, session_id, state, block_number, block_hash, dropped_from, counted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, $10, $11, $12, $13, CASE WHEN $10 = 'seen' THEN NULL ELSE now() END)
       ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE SET
         state = excluded.state, block_number = excluded.block_number, block_hash = excluded.block_hash, dropped_from = excluded.dropped_from,
         counted_at = CASE WHEN excluded.state <> 'seen' THEN coalesce(t.counted_at, now()) END,
         reversed_at = CASE WHEN excluded.state = 'reversed' THEN coalesce(t.reversed_at, now()) END`,
      [t.chainId, t.txHash, t.logIndex, t.token, t.from, t.to, t.units.toString(), t.environment, t.sessionId, t.state, t.blockNumber?.toString() ?? null, t.blockHash, t.droppedFrom?.toString() ?? null],
    );
  }
}

/** The part of a stored state `load` reads back: its filter on transfers, in TypeScript (the two must agree). */
function loadable(state: WatchState, window: number): WatchState {
  const lowest = state.nextBlock - BigInt(window);
  const transfers = new Map([...state.transfers].filter(([, t]) => t.state === 'seen' || t.blockNumber === null || t.blockNumber >= lowest).map(([key, t]) => [key, { ...t }]));
  return { chainId: state.chainId, nextBlock: state.nextBlock, hashes: new Map(state.hashes), transfers };
}

function fromRow(row: TransferRow): TrackedTransfer {
  return {
    chainId: row.chain_id,
    txHash: row.tx_hash as Hex,
    logIndex: row.log_index,
    token: row.token as Hex,
    from: row.from_address as Hex,
    to: row.to_address as Hex,
    units: BigInt(row.units),
    environment: row.environment,
    sessionId: row.session_id,
    state: row.state,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    blockHash: row.block_hash as Hex | null,
    droppedFrom: row.dropped_from === null ? null : BigInt(row.dropped_from),
  };
}

function sameTransfer(a: TrackedTransfer, b: TrackedTransfer): boolean {
  return a.state === b.state && a.blockNumber === b.blockNumber && a.blockHash === b.blockHash && a.droppedFrom === b.droppedFrom;
}
