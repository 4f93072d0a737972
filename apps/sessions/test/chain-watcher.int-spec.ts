// The chain watcher against a real anvil node and real Postgres: confirmations, reorgs before and after a
// transfer was counted, a restart mid-way (and a crash between telling sessions and storing the step), the node
// down and back, one active watcher per chain.
import { Logger } from '@nestjs/common';
import { createChainReader, type CryptoChain } from '@payments/chain';
import { pgClientConfig } from '@payments/database';
import { metricsRegistry } from '@payments/platform';
import {
  anvilDevAccount,
  createTestDatabase,
  deployTestToken,
  mineBlocks,
  reorgChain,
  sendToken,
  startAnvil,
  type RunningAnvil,
  type TestDatabase,
} from '@payments/testing';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { ChainLocks } from '../src/chain-watcher/chain-locks';
import { ChainWatchLoop } from '../src/chain-watcher/chain-watch.loop';
import { ChainWatchStore, WatchFencedError } from '../src/chain-watcher/chain-watch.store';
import { transferKey, type TrackedTransfer } from '../src/chain-watcher/domain/watch-state';
import type { AddressOwner, ConfirmedTransfer, ConfirmedTransferSink, Hex, WatchedAddresses } from '../src/chain-watcher/domain/ports';
import { SESSIONS_MIGRATIONS } from '../src/migrations/sessions-schema';

Logger.overrideLogger(['error']);

const SCHEMA = 'sessions';
const CONFIRMATIONS = 3;

/** The sink as sessions implements it in spirit: idempotent by key; every call kept to count them. */
class RecordingSink implements ConfirmedTransferSink {
  readonly recordCalls: ConfirmedTransfer[] = [];
  readonly reversedCalls: ConfirmedTransfer[] = [];
  readonly recorded = new Map<string, ConfirmedTransfer>();

  async record(t: ConfirmedTransfer): Promise<void> {
    this.recordCalls.push(t);
    this.recorded.set(`${t.chainId}:${t.txHash}:${t.logIndex}`, t);
  }

  async reportReversed(t: ConfirmedTransfer): Promise<void> {
    this.reversedCalls.push(t);
  }

  recordedTx(txHash: Hex): ConfirmedTransfer[] {
    return [...this.recorded.values()].filter((t) => t.txHash === txHash.toLowerCase());
  }
}

class WatchList implements WatchedAddresses {
  readonly owners = new Map<string, AddressOwner>();
  add(address: Hex, sessionId: string, environment: 'test' | 'live' = 'test'): Hex {
    this.owners.set(address.toLowerCase(), { environment, sessionId });
    return address;
  }
  async forChain(): Promise<ReadonlyMap<string, AddressOwner>> {
    return new Map(this.owners);
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let db: TestDatabase;
let chainIds = 41000;

beforeAll(async () => {
  db = await createTestDatabase('chainwatch');
});
afterAll(async () => {
  await db?.drop();
});

interface Setup {
  anvil: RunningAnvil;
  chain: CryptoChain;
  token: Hex;
  sink: RecordingSink;
  watch: WatchList;
  dataSource: DataSource;
  /** A watcher instance (its own locks connection); closed by the test's cleanup. */
  watcher(options?: { store?: ChainWatchStore }): ChainWatchLoop;
  rows(): Promise<Array<{ tx_hash: string; state: string; units: string; block_number: string | null; session_id: string }>>;
  cleanup(): Promise<void>;
}

async function setUp(options: { statePath?: string } = {}): Promise<Setup> {
  const chainId = ++chainIds;
  const anvil = await startAnvil({ chainId, statePath: options.statePath });
  const token = await deployTestToken(anvil.rpcUrl, { name: 'Test Tether', symbol: 'USDT', decimals: 6 });
  const chain: CryptoChain = { name: `anvil-${chainId}`, chainId, rpcUrl: anvil.rpcUrl, confirmations: CONFIRMATIONS, environments: ['test', 'live'], tokens: [{ symbol: 'USDT', address: token, decimals: 6 }] };
  const dataSource = await db.dataSource(SCHEMA, SESSIONS_MIGRATIONS);
  const sink = new RecordingSink();
  const watch = new WatchList();
  const opened: Array<{ loop: ChainWatchLoop; locks: ChainLocks }> = [];
  return {
    anvil,
    chain,
    token,
    sink,
    watch,
    dataSource,
    watcher(opts = {}) {
      const locks = new ChainLocks(pgClientConfig(dataSource, 'test-chain-locks'));
      const loop = new ChainWatchLoop({
        chain,
        reader: createChainReader(chain, { timeoutMs: 2000 }),
        watched: watch,
        sink,
        store: opts.store ?? new ChainWatchStore(dataSource, SCHEMA),
        locks,
        settings: { hashMargin: 16, rangeBlocks: 50, maxBlocksPerStep: 200 },
        pollIntervalMs: 50,
        retryMaxMs: 400,
      });
      opened.push({ loop, locks });
      return Object.assign(loop, { close: async () => (await loop.stop(), await locks.close()) });
    },
    rows: () =>
      dataSource.query(`SELECT tx_hash, state, units::text, block_number::text, session_id FROM "${SCHEMA}".chain_watch_transfers WHERE chain_id = $1 ORDER BY seen_at, tx_hash`, [chainId]),
    async cleanup() {
      for (const { loop, locks } of opened) {
        await loop.stop();
        await locks.close();
      }
      await anvil.stop();
    },
  };
}

const closeLoop = (loop: ChainWatchLoop) => (loop as ChainWatchLoop & { close(): Promise<void> }).close();

describe('the chain watcher on anvil', () => {
  let s: Setup;
  afterEach(async () => {
    await s?.cleanup();
  });

  it('counts an exact transfer once it has the confirmations, exactly once', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_exact');
    const watcher = s.watcher();
    expect(await watcher.runOnce()).toBe('idle');

    const txHash = await sendToken(s.anvil.rpcUrl, s.token, address, 12_345_678n);
    await sendToken(s.anvil.rpcUrl, s.token, anvilDevAccount(12).address, 5n); // not a watched address
    await watcher.runOnce();
    expect(s.sink.recordCalls).toHaveLength(0);
    expect(await s.rows()).toEqual([expect.objectContaining({ tx_hash: txHash, state: 'seen', units: '12345678' })]);

    await mineBlocks(s.anvil.rpcUrl, 1); // the transfer's block, the other transfer's, this one: 3
    await watcher.runOnce();
    expect(s.sink.recordCalls).toEqual([
      expect.objectContaining({ environment: 'test', sessionId: 'pi_exact', chainId: s.chain.chainId, tokenSymbol: 'USDT', txHash, logIndex: 0, units: 12_345_678n, cents: 1234n }),
    ]);
    await mineBlocks(s.anvil.rpcUrl, 5);
    await watcher.runOnce();
    await watcher.runOnce();
    expect(s.sink.recordCalls).toHaveLength(1);
    expect(await s.rows()).toEqual([expect.objectContaining({ tx_hash: txHash, state: 'counted', units: '12345678' })]);
  });

  it('steps on from the state it stored, reading the table only when another instance may have stored since', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_kept');
    const store = new ChainWatchStore(s.dataSource, SCHEMA);
    const counting = Object.create(store) as ChainWatchStore;
    let loads = 0;
    let lastSaved: Awaited<ReturnType<ChainWatchStore['save']>> | undefined;
    counting.load = (...args) => ((loads += 1), store.load(...args));
    counting.save = async (...args) => (lastSaved = await store.save(...args));
    const a = s.watcher({ store: counting });
    await a.runOnce();
    await sendToken(s.anvil.rpcUrl, s.token, address, 1_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 3);
    await a.runOnce(); // counted
    await mineBlocks(s.anvil.rpcUrl, 25); // it falls below the kept hashes (3 + 16 blocks)
    const t2 = await sendToken(s.anvil.rpcUrl, s.token, address, 2_000_000n);
    await a.runOnce(); // seen
    await mineBlocks(s.anvil.rpcUrl, 3);
    await a.runOnce(); // counted
    expect(loads).toBe(1);
    // What it kept is what a read gives: the same transfers (the old counted one left out), hashes and fence.
    const window = CONFIRMATIONS + 16;
    expect(lastSaved).toEqual(await store.load(s.chain.chainId, window));
    expect([...lastSaved!.state.transfers.values()].map((t) => [t.txHash, t.state])).toEqual([[t2, 'counted']]);

    // Its lock's connection dies and another instance steps meanwhile: once it holds the chain again, it reads it.
    const b = s.watcher();
    await s.dataSource.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE '%test-chain-locks'`);
    await until(async () => (await b.runOnce()) !== 'standby', 'the other instance taking the chain');
    await sendToken(s.anvil.rpcUrl, s.token, address, 3_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 3);
    await b.runOnce();
    expect(await a.runOnce()).toBe('standby');
    await closeLoop(b);
    await until(async () => (await a.runOnce()) !== 'standby', 'the first instance taking the chain back');
    expect(loads).toBe(2);
    expect(lastSaved).toEqual(await store.load(s.chain.chainId, window));
    expect(s.sink.recordCalls.map((t) => t.units)).toEqual([1_000_000n, 2_000_000n, 3_000_000n]);
  });

  it('never counts a transfer a reorg removes before its confirmations', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_reorg_early');
    const watcher = s.watcher();
    await watcher.runOnce();
    const txHash = await sendToken(s.anvil.rpcUrl, s.token, address, 1_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 1);
    await watcher.runOnce();
    expect((await s.rows()).map((r) => [r.tx_hash, r.state])).toEqual([[txHash, 'seen']]);

    await reorgChain(s.anvil.rpcUrl, 2); // drops the transfer's block and the one after
    await watcher.runOnce();
    expect(await s.rows()).toEqual([]);
    await mineBlocks(s.anvil.rpcUrl, 6);
    await watcher.runOnce();
    expect(s.sink.recordCalls).toHaveLength(0);
    expect(s.sink.reversedCalls).toHaveLength(0);
  });

  it('reports a counted transfer a reorg removes, once, and never counts it twice', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_reorg_late');
    const watcher = s.watcher();
    await watcher.runOnce();
    const txHash = await sendToken(s.anvil.rpcUrl, s.token, address, 2_500_000n);
    await mineBlocks(s.anvil.rpcUrl, 3);
    await watcher.runOnce();
    expect(s.sink.recordCalls.map((t) => t.txHash)).toEqual([txHash]);

    // Four new blocks where the transfer's and the three after it were, with another transfer to the same address.
    await reorgChain(s.anvil.rpcUrl, 4, { transfers: [{ token: s.token, to: address, units: 700_000n, blockOffset: 0 }] });
    await watcher.runOnce();
    expect(s.sink.reversedCalls).toEqual([expect.objectContaining({ txHash, sessionId: 'pi_reorg_late', units: 2_500_000n, cents: 250n })]);
    await mineBlocks(s.anvil.rpcUrl, 4);
    await watcher.runOnce();
    await watcher.runOnce();
    expect(s.sink.reversedCalls).toHaveLength(1);
    // The transfer of the new chain is a transfer of its own, counted once; the reversed one never again.
    expect(s.sink.recordCalls.map((t) => t.units)).toEqual([2_500_000n, 700_000n]);
    const rows = await s.rows();
    expect(rows.find((r) => r.tx_hash === txHash)).toMatchObject({ state: 'reversed', block_number: null });
    expect(rows.filter((r) => r.state === 'counted')).toHaveLength(1);
  });

  it('resumes after a restart without missing or counting twice, also after a crash between telling sessions and storing', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_restart');
    const first = s.watcher();
    await first.runOnce();
    const t1 = await sendToken(s.anvil.rpcUrl, s.token, address, 1_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 2);
    await first.runOnce();
    const t2 = await sendToken(s.anvil.rpcUrl, s.token, address, 2_000_000n);
    await first.runOnce(); // t2 seen, not yet confirmed
    await closeLoop(first);

    // While no watcher runs: t2 gets its confirmations, t3 arrives.
    const t3 = await sendToken(s.anvil.rpcUrl, s.token, address, 3_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 2);

    // The next instance dies after telling sessions and before storing its step (as a kill -9 there would).
    const store = new ChainWatchStore(s.dataSource, SCHEMA);
    const crashing = Object.create(store) as ChainWatchStore;
    crashing.save = async () => {
      throw new Error('killed before the commit');
    };
    const second = s.watcher({ store: crashing });
    await expect(second.runOnce()).rejects.toThrow('killed before the commit');
    await closeLoop(second);
    expect(s.sink.recordCalls.map((t) => t.txHash)).toEqual([t1, t2, t3]);

    const third = s.watcher();
    third.start();
    await until(async () => (await s.rows()).every((r) => r.state === 'counted') && (await s.rows()).length === 3, 'the three transfers counted');
    await closeLoop(third);
    // Sessions saw t2 and t3 again from the third instance (its record is idempotent by key): each is one transfer.
    expect([...s.sink.recorded.values()].map((t) => [t.txHash, t.units])).toEqual([
      [t1, 1_000_000n],
      [t2, 2_000_000n],
      [t3, 3_000_000n],
    ]);
    expect(s.sink.recordCalls.filter((t) => t.txHash === t1)).toHaveLength(1);
    expect(s.sink.recordCalls).toHaveLength(5);
  });

  it('rides out the node being down and catches up when it is back', async () => {
    const statePath = join(tmpdir(), `anvil-watch-${process.pid}-${Date.now()}.json`);
    s = await setUp({ statePath });
    try {
      const address = s.watch.add(anvilDevAccount(11).address, 'pi_node_down', 'live');
      const watcher = s.watcher();
      watcher.start();
      const t1 = await sendToken(s.anvil.rpcUrl, s.token, address, 4_000_000n);
      await mineBlocks(s.anvil.rpcUrl, 2);
      await until(() => s.sink.recorded.size === 1, 't1 counted');

      await s.anvil.stop();
      // The loop keeps failing and retrying meanwhile; wait for a few failed steps.
      const failedBefore = await failedSteps(s.chain.name);
      await until(async () => (await failedSteps(s.chain.name)) >= failedBefore + 3, 'failed steps while the node is down');
      await s.anvil.restart();

      const t2 = await sendToken(s.anvil.rpcUrl, s.token, address, 5_000_000n);
      await mineBlocks(s.anvil.rpcUrl, 2);
      await until(() => s.sink.recorded.size === 2, 't2 counted after the node came back');
      expect(s.sink.recordCalls.map((t) => [t.txHash, t.environment, t.cents])).toEqual([
        [t1, 'live', 400n],
        [t2, 'live', 500n],
      ]);
      expect(s.sink.reversedCalls).toHaveLength(0);
    } finally {
      rmSync(statePath, { force: true });
    }
  });

  it('watches a chain from one instance at a time; another takes over when it dies', async () => {
    s = await setUp();
    const address = s.watch.add(anvilDevAccount(11).address, 'pi_two');
    const a = s.watcher();
    const b = s.watcher();
    expect(await a.runOnce()).toBe('idle');
    expect(await b.runOnce()).toBe('standby');
    await sendToken(s.anvil.rpcUrl, s.token, address, 1_000_000n);
    await mineBlocks(s.anvil.rpcUrl, 2);
    await closeLoop(a); // its lock's session ends
    await until(async () => (await b.runOnce()) !== 'standby', 'the other instance taking the chain');
    expect(s.sink.recordCalls).toHaveLength(1);
  });
});

async function failedSteps(chain: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('chain_watcher_step_failures_total')?.get();
  return metric?.values.find((v) => v.labels.chain === chain)?.value ?? 0;
}

describe('the chain watch store', () => {
  const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
  const hashes = (from: number, to: number, salt = 0) => new Map(Array.from({ length: to - from + 1 }, (_, i) => [BigInt(from + i), hash((from + i) * 1000 + salt)]));
  const transfer = (chainId: number, blockNumber: bigint): TrackedTransfer => ({
    chainId,
    txHash: hash(7),
    logIndex: 0,
    token: hash(1),
    from: hash(2),
    to: hash(3),
    units: 1_000_000n,
    environment: 'test',
    sessionId: 'pi_store',
    state: 'seen',
    blockNumber,
    blockHash: hash(Number(blockNumber) * 1000),
    droppedFrom: null,
  });

  it('stores a step that only moved on by blocks in one statement, and a fenced save of either kind changes nothing', async () => {
    const chainId = ++chainIds;
    const dataSource = await db.dataSource(SCHEMA, SESSIONS_MIGRATIONS);
    let transactions = 0;
    const counted = Object.create(dataSource) as DataSource;
    const transaction = dataSource.transaction as (...args: unknown[]) => Promise<unknown>;
    counted.transaction = ((...args: unknown[]) => ((transactions += 1), transaction.apply(dataSource, args))) as DataSource['transaction'];
    const store = new ChainWatchStore(counted, SCHEMA);
    const window = 5;
    const first = await store.save('store-chain', null, { chainId, nextBlock: 11n, hashes: hashes(6, 10), transfers: new Map() }, 10n, window);
    expect(transactions).toBe(1);

    // Blocks 11-12 scanned, 6-7 out of the window: no transaction, and a read gives what the save answered.
    const moved = await store.save('store-chain', first, { chainId, nextBlock: 13n, hashes: hashes(8, 12), transfers: new Map() }, 12n, window);
    expect(transactions).toBe(1);
    expect(moved.steps).toBe(2n);
    expect(await store.load(chainId, window)).toEqual(moved);

    // Another instance stored meanwhile: the stale save is refused by both paths and the table is as it was.
    const stale = first;
    await expect(store.save('store-chain', stale, { chainId, nextBlock: 14n, hashes: hashes(9, 13), transfers: new Map() }, 13n, window)).rejects.toBeInstanceOf(WatchFencedError);
    const seen = transfer(chainId, 12n);
    await expect(
      store.save('store-chain', stale, { chainId, nextBlock: 14n, hashes: hashes(9, 13), transfers: new Map([[transferKey(seen), seen]]) }, 13n, window),
    ).rejects.toBeInstanceOf(WatchFencedError);
    expect(await store.load(chainId, window)).toEqual(moved);

    // A reorg that replaces kept hashes, and a transfer seen: the transaction's way, and a read agrees again.
    const before = transactions;
    const reorged = await store.save('store-chain', moved, { chainId, nextBlock: 13n, hashes: new Map([...hashes(8, 10), ...hashes(11, 12, 1)]), transfers: new Map([[transferKey(seen), seen]]) }, 12n, window);
    expect(transactions).toBe(before + 1);
    expect(await store.load(chainId, window)).toEqual(reorged);
  });
});
