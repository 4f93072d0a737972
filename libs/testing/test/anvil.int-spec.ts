// The local test chain works as the crypto tests need it: a real anvil, test tokens of 6 and 18 decimals,
// transfers, balances, mined blocks, reorgs and restarts.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  anvilDevAccount,
  blockHashAt,
  chainHead,
  deployTestToken,
  mineBlocks,
  reorgChain,
  rollbackChain,
  rpc,
  sendToken,
  startAnvil,
  testChainClient,
  tokenBalance,
  type RunningAnvil,
} from '../src';

describe('the local test chain', () => {
  let anvil: RunningAnvil;

  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('answers on loopback with its chain id', async () => {
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_chainId', []))).toBe(31337n);
  });

  it('deploys 6- and 18-decimal tokens and transfers them exactly', async () => {
    const usdc = await deployTestToken(anvil.rpcUrl, { name: 'Test USD Coin', symbol: 'USDC', decimals: 6 });
    const dai = await deployTestToken(anvil.rpcUrl, { name: 'Test Dai', symbol: 'DAI', decimals: 18 });
    expect(usdc).not.toBe(dai);
    const client = await testChainClient(anvil.rpcUrl);
    const decimals = { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] } as const;
    expect(await client.readContract({ address: usdc, abi: [decimals], functionName: 'decimals' })).toBe(6);
    expect(await client.readContract({ address: dai, abi: [decimals], functionName: 'decimals' })).toBe(18);

    const deployer = anvilDevAccount(0).address;
    expect(await tokenBalance(anvil.rpcUrl, usdc, deployer)).toBe(10n ** 12n * 10n ** 6n);

    const to = anvilDevAccount(5).address;
    await sendToken(anvil.rpcUrl, usdc, to, 12_345_678n);
    await sendToken(anvil.rpcUrl, dai, to, 1_000_000_000_000_000_001n);
    expect(await tokenBalance(anvil.rpcUrl, usdc, to)).toBe(12_345_678n);
    expect(await tokenBalance(anvil.rpcUrl, dai, to)).toBe(1_000_000_000_000_000_001n);

    // From another dev account, and several at once (no nonce taken twice).
    const third = anvilDevAccount(7).address;
    await Promise.all([1n, 2n, 3n].map((units) => sendToken(anvil.rpcUrl, usdc, third, units, { from: 5 })));
    expect(await tokenBalance(anvil.rpcUrl, usdc, third)).toBe(6n);
    expect(await tokenBalance(anvil.rpcUrl, usdc, to)).toBe(12_345_672n);
  });

  it('mines blocks on demand', async () => {
    const before = await chainHead(anvil.rpcUrl);
    await mineBlocks(anvil.rpcUrl, 5);
    expect((await chainHead(anvil.rpcUrl)).number).toBe(before.number + 5n);
  });

  it('reorganises: the same heights get other hashes and a transfer left out is gone', async () => {
    const token = await deployTestToken(anvil.rpcUrl, { name: 'Reorg USD', symbol: 'RUSD', decimals: 6 });
    const to = anvilDevAccount(8).address;
    const tx = await sendToken(anvil.rpcUrl, token, to, 500n);
    const client = await testChainClient(anvil.rpcUrl);
    const included = (await client.getTransactionReceipt({ hash: tx })).blockNumber;
    await mineBlocks(anvil.rpcUrl, 2);
    const head = await chainHead(anvil.rpcUrl);
    expect(head.number).toBe(included + 2n);
    const oldHash = await blockHashAt(anvil.rpcUrl, included);

    const after = await reorgChain(anvil.rpcUrl, 3);
    expect(after.number).toBe(head.number);
    expect(after.hash).not.toBe(head.hash);
    expect(await blockHashAt(anvil.rpcUrl, included)).not.toBe(oldHash);
    expect(await tokenBalance(anvil.rpcUrl, token, to)).toBe(0n);
    // Later blocks do not bring it back.
    await mineBlocks(anvil.rpcUrl, 2);
    expect(await tokenBalance(anvil.rpcUrl, token, to)).toBe(0n);
  });

  it('reorganises with a transfer moved into another block of the new chain', async () => {
    const token = await deployTestToken(anvil.rpcUrl, { name: 'Moved USD', symbol: 'MUSD', decimals: 6 });
    const to = anvilDevAccount(9).address;
    await sendToken(anvil.rpcUrl, token, to, 700n);
    await mineBlocks(anvil.rpcUrl, 3);
    const head = await chainHead(anvil.rpcUrl);
    const after = await reorgChain(anvil.rpcUrl, 4, { transfers: [{ token, to, units: 900n, blockOffset: 2 }] });
    expect(after.number).toBe(head.number);
    expect(await tokenBalance(anvil.rpcUrl, token, to)).toBe(900n);
    const client = await testChainClient(anvil.rpcUrl);
    const logs = await client.getLogs({ address: token, fromBlock: head.number - 3n, toBlock: head.number });
    expect(logs.map((l) => l.blockNumber)).toEqual([head.number - 3n + 2n]);
  });

  it('rolls back: the chain gets shorter', async () => {
    await mineBlocks(anvil.rpcUrl, 3);
    const head = await chainHead(anvil.rpcUrl);
    expect((await rollbackChain(anvil.rpcUrl, 2)).number).toBe(head.number - 2n);
    expect(await blockHashAt(anvil.rpcUrl, head.number)).toBeNull();
  });
});

describe('a test chain that is stopped and restarted', () => {
  it('keeps its state across a clean restart with statePath, and comes back after kill -9', async () => {
    const statePath = join(tmpdir(), `anvil-state-${process.pid}-${Date.now()}.json`);
    const anvil = await startAnvil({ statePath, chainId: 31338 });
    try {
      const token = await deployTestToken(anvil.rpcUrl, { name: 'Kept USD', symbol: 'KUSD', decimals: 6 });
      const to = anvilDevAccount(3).address;
      await sendToken(anvil.rpcUrl, token, to, 42n);
      const head = await chainHead(anvil.rpcUrl);
      const firstPid = anvil.process.pid;

      await anvil.restart();
      expect(anvil.process.pid).not.toBe(firstPid);
      expect(BigInt(await rpc<string>(anvil.rpcUrl, 'eth_chainId', []))).toBe(31338n);
      expect((await chainHead(anvil.rpcUrl)).hash).toBe(head.hash);
      expect(await tokenBalance(anvil.rpcUrl, token, to)).toBe(42n);

      await anvil.kill9();
      await expect(rpc(anvil.rpcUrl, 'eth_blockNumber', [])).rejects.toThrow();
      await anvil.restart();
      expect((await chainHead(anvil.rpcUrl)).number).toBeGreaterThanOrEqual(0n);
    } finally {
      await anvil.stop();
      rmSync(statePath, { force: true });
    }
  });

  it('mines on its own with a block time', async () => {
    const anvil = await startAnvil({ blockTimeSeconds: 1 });
    try {
      const start = (await chainHead(anvil.rpcUrl)).number;
      const client = await testChainClient(anvil.rpcUrl);
      await new Promise<void>((resolve) => {
        const unwatch = client.watchBlockNumber({
          onBlockNumber: (n) => {
            if (n >= start + 2n) {
              unwatch();
              resolve();
            }
          },
        });
      });
      const token = await deployTestToken(anvil.rpcUrl, { name: 'Timed USD', symbol: 'TUSD', decimals: 6 });
      await sendToken(anvil.rpcUrl, token, anvilDevAccount(2).address, 5n);
      expect(await tokenBalance(anvil.rpcUrl, token, anvilDevAccount(2).address)).toBe(5n);
    } finally {
      await anvil.stop();
    }
  });
});
