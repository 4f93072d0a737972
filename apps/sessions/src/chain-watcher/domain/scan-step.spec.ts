import type { AddressOwner, ChainReader, ChainTransfer, ConfirmedTransfer, CryptoChain, Hex, WatchedAddresses } from './ports';
import { ChainMovedError, scanStep, type ScanSettings, type StepResult } from './scan-step';
import { transferKey, type WatchState } from './watch-state';

const TOKEN = '0x00000000000000000000000000000000000000aa' as Hex;
const ALICE = '0x00000000000000000000000000000000000000a1' as Hex;
const BOB = '0x00000000000000000000000000000000000000b0' as Hex;
const STRANGER = '0x00000000000000000000000000000000000000c0' as Hex;

const chain: CryptoChain = {
  name: 'mem',
  chainId: 7,
  rpcUrl: 'memory://',
  confirmations: 3,
  environments: ['test', 'live'],
  tokens: [{ symbol: 'USDT', address: TOKEN, decimals: 6 }],
};

interface PendingTransfer {
  txHash: Hex;
  to: Hex;
  units: bigint;
}

/** A chain in memory: blocks with hashes and Transfer logs, mined and reorganised at will. */
class MemoryChain implements ChainReader {
  private blocks: Array<{ hash: Hex; transfers: PendingTransfer[] }> = [];
  private fork = 0;
  calls = 0;
  down = false;
  /** Runs once, right after the next eth_getLogs answer (a reorg between the logs and the hashes of a step). */
  afterLogs: (() => void) | null = null;

  constructor(blocks = 1) {
    this.mine(blocks);
  }

  /** Mines blocks; the first carries `transfers`. Returns the first block's number. */
  mine(n = 1, transfers: PendingTransfer[] = []): bigint {
    const first = BigInt(this.blocks.length);
    for (let i = 0; i < n; i++) {
      const number = this.blocks.length;
      this.blocks.push({ hash: `0x${this.fork.toString(16)}f${number.toString(16).padStart(8, '0')}` as Hex, transfers: i === 0 ? transfers : [] });
    }
    return first;
  }

  /** Replaces the last `depth` blocks by `depth` new ones (new hashes); `include` go into the first new block. */
  reorg(depth: number, include: PendingTransfer[] = [], newLength = depth): void {
    this.fork++;
    this.blocks.splice(this.blocks.length - depth, depth);
    this.mine(newLength, include);
  }

  async head(): Promise<bigint> {
    this.touch();
    return BigInt(this.blocks.length - 1);
  }

  async blockHash(number: bigint): Promise<Hex | null> {
    this.touch();
    return this.blocks[Number(number)]?.hash ?? null;
  }

  async transfersTo(tokens: readonly Hex[], recipients: readonly Hex[], fromBlock: bigint, toBlock: bigint): Promise<ChainTransfer[]> {
    this.touch();
    if (!tokens.includes(TOKEN)) return [];
    const out: ChainTransfer[] = [];
    for (let n = Number(fromBlock); n <= Number(toBlock) && n < this.blocks.length; n++) {
      this.blocks[n]!.transfers.forEach((t, logIndex) => {
        if (!recipients.map((r) => r.toLowerCase()).includes(t.to.toLowerCase())) return;
        out.push({ chainId: chain.chainId, token: TOKEN, txHash: t.txHash, logIndex, blockNumber: BigInt(n), blockHash: this.blocks[n]!.hash, from: STRANGER, to: t.to, units: t.units });
      });
    }
    const after = this.afterLogs;
    this.afterLogs = null;
    after?.();
    return out;
  }

  private touch(): void {
    this.calls++;
    if (this.down) throw new Error('connection refused');
  }
}

const watchList: WatchedAddresses = {
  async forChain(): Promise<ReadonlyMap<string, AddressOwner>> {
    return new Map([
      [ALICE, { environment: 'test', sessionId: 'pi_alice' }],
      [BOB, { environment: 'live', sessionId: 'pi_bob' }],
    ]);
  },
};

/** The loop around scanStep as the service runs it: steps until caught up, the sink told of every result. */
class Watcher {
  state: WatchState | null = null;
  readonly recorded: ConfirmedTransfer[] = [];
  readonly reversed: ConfirmedTransfer[] = [];
  readonly results: StepResult[] = [];

  constructor(
    private readonly reader: ChainReader,
    private readonly settings?: ScanSettings,
  ) {}

  async catchUp(): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const result = await scanStep({ chain, reader: this.reader, watched: watchList, state: this.state, settings: this.settings });
      this.recorded.push(...result.record);
      this.reversed.push(...result.reverse);
      this.results.push(result);
      this.state = result.state;
      if (result.caughtUp) return;
    }
    throw new Error('never caught up');
  }

  stateOf(txHash: Hex, logIndex = 0) {
    return this.state!.transfers.get(transferKey({ chainId: chain.chainId, txHash, logIndex }));
  }
}

const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

describe('scanStep', () => {
  it('counts a transfer once it has the confirmations, exactly once, with its cents', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    const block = node.mine(1, [{ txHash: tx(1), to: ALICE, units: 12_345_678n }, { txHash: tx(2), to: STRANGER, units: 5n }]);
    await watcher.catchUp();
    node.mine(1);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(0);
    expect(watcher.stateOf(tx(1))?.state).toBe('seen');

    node.mine(1); // head - block + 1 = 3
    await watcher.catchUp();
    node.mine(5);
    await watcher.catchUp();
    expect(watcher.recorded).toEqual([
      expect.objectContaining({ environment: 'test', sessionId: 'pi_alice', chainId: 7, chainName: 'mem', token: TOKEN, tokenSymbol: 'USDT', txHash: tx(1), logIndex: 0, blockNumber: block, units: 12_345_678n, cents: 1234n }),
    ]);
    expect(watcher.state!.transfers.size).toBe(1);
  });

  it('forgets a transfer a reorg removes before its confirmations: never counted', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    node.mine(1, [{ txHash: tx(1), to: BOB, units: 1_000_000n }]);
    node.mine(1);
    await watcher.catchUp();
    expect(watcher.stateOf(tx(1))?.state).toBe('seen');

    node.reorg(2, [], 3);
    await watcher.catchUp();
    expect(watcher.results.at(-1)!.reorg).toEqual({ commonBlock: 4n, droppedBlocks: 2, deep: false });
    expect(watcher.stateOf(tx(1))).toBeUndefined();
    node.mine(10);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(0);
    expect(watcher.reversed).toHaveLength(0);
  });

  it('keeps a transfer the reorg moves to another block as the same one: counted once', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    const transfer = { txHash: tx(1), to: ALICE, units: 2_000_000n };
    node.mine(1, [transfer]);
    node.mine(3);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(1);

    // Counted, then its block is dropped and the same transaction lands two blocks later in the new chain.
    node.reorg(4, [], 1);
    node.mine(1, [transfer]);
    node.mine(4);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(1);
    expect(watcher.reversed).toHaveLength(0);
    expect(watcher.stateOf(tx(1))).toMatchObject({ state: 'counted', blockNumber: 6n, droppedFrom: null });
  });

  it('re-includes a seen transfer moved by a reorg and counts it once at its new block', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    const transfer = { txHash: tx(1), to: ALICE, units: 1n * 10n ** 6n };
    node.mine(1, [transfer]);
    await watcher.catchUp();
    node.reorg(1, [], 1);
    node.mine(1, [transfer]);
    await watcher.catchUp();
    expect(watcher.stateOf(tx(1))).toMatchObject({ state: 'seen', blockNumber: 6n });
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => t.blockNumber)).toEqual([6n]);
  });

  it('reports a counted transfer a reorg takes back, once, and counts it no more while it stays gone', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    node.mine(1, [{ txHash: tx(1), to: ALICE, units: 3_000_000n }]);
    node.mine(3);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(1);

    // The new chain is shorter at first: the watcher waits until it is as deep as the confirmations ask.
    node.reorg(4, [], 1);
    await watcher.catchUp();
    expect(watcher.reversed).toHaveLength(0);
    expect(watcher.stateOf(tx(1))).toMatchObject({ state: 'counted', blockNumber: null, droppedFrom: 5n });
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.reversed).toEqual([expect.objectContaining({ txHash: tx(1), sessionId: 'pi_alice', blockNumber: 5n, cents: 300n })]);
    expect(watcher.results.flatMap((r) => r.notes).filter((n) => n.level === 'error')).toHaveLength(1);
    node.mine(10);
    await watcher.catchUp();
    expect(watcher.reversed).toHaveLength(1);
    expect(watcher.recorded).toHaveLength(1);
    expect(watcher.stateOf(tx(1))?.state).toBe('reversed');
  });

  it('hands a reversed transfer that is mined again to sessions again, under its key (sessions counts it once)', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    const transfer = { txHash: tx(1), to: ALICE, units: 3_000_000n };
    node.mine(1, [transfer]);
    node.mine(3);
    await watcher.catchUp();
    node.reorg(4);
    await watcher.catchUp();
    expect(watcher.reversed).toHaveLength(1);

    node.mine(1, [transfer]);
    await watcher.catchUp();
    expect(watcher.stateOf(tx(1))).toMatchObject({ state: 'seen', blockNumber: 9n, droppedFrom: null });
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => [t.txHash, t.logIndex, t.blockNumber])).toEqual([
      [tx(1), 0, 5n],
      [tx(1), 0, 9n],
    ]);
    expect(watcher.results.flatMap((r) => r.notes).filter((n) => n.level === 'error' && /in the chain again/.test(n.message))).toHaveLength(1);
    node.mine(5);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(2);
    expect(watcher.reversed).toHaveLength(1);
  });

  it('a counted transaction a reorg puts behind another one (another log index) stays the same transfer: never counted twice, never reversed', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    const transfer = { txHash: tx(1), to: ALICE, units: 3_000_000n };
    node.mine(1, [transfer]);
    node.mine(2);
    await watcher.catchUp();
    node.reorg(3, [{ txHash: tx(2), to: STRANGER, units: 1n }, transfer], 3);
    node.mine(5);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => [t.txHash, t.logIndex])).toEqual([[tx(1), 0]]);
    expect(watcher.reversed).toHaveLength(0);
    expect(watcher.stateOf(tx(1))).toMatchObject({ state: 'counted', blockNumber: 5n, droppedFrom: null });
    expect(watcher.stateOf(tx(1), 1)).toBeUndefined();
  });

  it('a counted transaction paying two addresses, moved one log further by a reorg, keeps each transfer its own: none counted twice, none reversed', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    // One transaction (a batch payout) paying Alice's and Bob's deposit addresses: logs 0 and 1 of its block.
    const toAlice = { txHash: tx(1), to: ALICE, units: 3_000_000n };
    const toBob = { txHash: tx(1), to: BOB, units: 5_000_000n };
    node.mine(1, [toAlice, toBob]);
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => [t.sessionId, t.logIndex, t.cents])).toEqual([
      ['pi_alice', 0, 300n],
      ['pi_bob', 1, 500n],
    ]);
    // A reorg re-mines it behind another transaction: Alice's log now sits where Bob's was counted.
    node.reorg(3, [{ txHash: tx(2), to: STRANGER, units: 1n }, toAlice, toBob], 3);
    node.mine(5);
    await watcher.catchUp();
    expect(watcher.recorded).toHaveLength(2);
    expect(watcher.reversed).toHaveLength(0);
    expect(watcher.stateOf(tx(1), 0)).toMatchObject({ sessionId: 'pi_alice', to: ALICE, state: 'counted', blockNumber: 5n });
    expect(watcher.stateOf(tx(1), 1)).toMatchObject({ sessionId: 'pi_bob', to: BOB, state: 'counted', blockNumber: 5n });
    expect(watcher.stateOf(tx(1), 2)).toBeUndefined();
  });

  it('a reorg between a step\'s logs and its hashes voids the step: the transfer it brought in is counted, not skipped', async () => {
    const node = new MemoryChain(5);
    const watcher = new Watcher(node);
    await watcher.catchUp();
    // The newest block is read without the transfer; before its hash is read, a reorg replaces it by one with it.
    node.mine(1);
    node.afterLogs = () => node.reorg(1, [{ txHash: tx(1), to: ALICE, units: 2_000_000n }]);
    await expect(watcher.catchUp()).rejects.toThrow(ChainMovedError);
    // Nothing of that step was kept: the next one reads the block again and finds it.
    await watcher.catchUp();
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => [t.txHash, t.sessionId, t.cents])).toEqual([[tx(1), 'pi_alice', 200n]]);
  });

  it('follows a reorg deeper than the kept hashes as far as they go, with an error', async () => {
    const node = new MemoryChain(1);
    const watcher = new Watcher(node, { hashMargin: 2, rangeBlocks: 4, maxBlocksPerStep: 100 });
    node.mine(20);
    await watcher.catchUp();
    expect(watcher.state!.hashes.size).toBe(5);
    node.mine(1, [{ txHash: tx(9), to: ALICE, units: 10n ** 6n }]);
    node.reorg(12, [{ txHash: tx(1), to: BOB, units: 10n ** 6n }], 12);
    await watcher.catchUp();
    const reorg = watcher.results.at(-1)!.reorg!;
    expect(reorg).toEqual({ commonBlock: 15n, droppedBlocks: 5, deep: true });
    expect(watcher.results.at(-1)!.notes.some((n) => n.level === 'error' && /deeper/.test(n.message))).toBe(true);
    node.mine(3);
    await watcher.catchUp();
    // The transfer in the new blocks below the kept hashes (block 10) is not rescanned; the next ones are.
    expect(watcher.recorded).toHaveLength(0);
  });

  it('scans a long way behind in bounded ranges and steps, then catches up', async () => {
    const node = new MemoryChain(1);
    const watcher = new Watcher(node, { hashMargin: 4, rangeBlocks: 10, maxBlocksPerStep: 50 });
    await watcher.catchUp();
    node.mine(1, [{ txHash: tx(1), to: ALICE, units: 1_000_000n }]);
    node.mine(199, []);
    node.mine(1, [{ txHash: tx(2), to: BOB, units: 500_000n }]);
    await watcher.catchUp();
    expect(watcher.results.length).toBeGreaterThanOrEqual(5);
    expect(watcher.recorded.map((t) => t.txHash)).toEqual([tx(1)]);
    node.mine(2);
    await watcher.catchUp();
    expect(watcher.recorded.map((t) => [t.txHash, t.cents])).toEqual([
      [tx(1), 100n],
      [tx(2), 50n],
    ]);
    expect(watcher.state!.hashes.size).toBe(7);
  });

  it('resumes from a stored state without missing or counting twice, and an RPC failure changes nothing', async () => {
    const node = new MemoryChain(5);
    const first = new Watcher(node);
    await first.catchUp();
    node.mine(1, [{ txHash: tx(1), to: ALICE, units: 1_000_000n }]);
    node.mine(2);
    await first.catchUp();
    const stored = structuredClone(first.state!);

    node.mine(1, [{ txHash: tx(2), to: ALICE, units: 1_000_000n }]);
    node.down = true;
    const second = new Watcher(node);
    second.state = stored;
    await expect(second.catchUp()).rejects.toThrow('connection refused');
    expect(second.state).toBe(stored);
    node.down = false;
    node.mine(3);
    await second.catchUp();
    expect(first.recorded.map((t) => t.txHash)).toEqual([tx(1)]);
    expect(second.recorded.map((t) => t.txHash)).toEqual([tx(2)]);
  });
});
