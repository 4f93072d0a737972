// The chain reader against a real anvil node: transfers to watched addresses with their block number, hash and
// log index; nothing else; many recipients and long ranges split into several eth_getLogs calls; head, block
// hashes and a reorg.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainReader, deriveDepositAddress, type CryptoChain } from '../src';
import {
  anvilDevAccount,
  chainHead,
  deployTestToken,
  mineBlocks,
  mintToken,
  reorgChain,
  sendToken,
  startAnvil,
  testChainClient,
  type RunningAnvil,
} from '@payments/testing';
import { HDKey } from 'viem/accounts';

type Hex = `0x${string}`;

describe('the chain reader on a real node', () => {
  let anvil: RunningAnvil;
  let chain: CryptoChain;
  let usdc: Hex;
  let dai: Hex;
  let other: Hex;
  const xpub = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey;
  const address = (i: number): Hex => deriveDepositAddress(xpub, i);

  beforeAll(async () => {
    anvil = await startAnvil();
    usdc = await deployTestToken(anvil.rpcUrl, { name: 'Test USD Coin', symbol: 'USDC', decimals: 6 });
    dai = await deployTestToken(anvil.rpcUrl, { name: 'Test Dai', symbol: 'DAI', decimals: 18 });
    other = await deployTestToken(anvil.rpcUrl, { name: 'Not watched', symbol: 'NOPE', decimals: 6 });
    await mintToken(anvil.rpcUrl, dai, anvilDevAccount(1).address, 10n ** 24n);
    await mintToken(anvil.rpcUrl, usdc, anvilDevAccount(2).address, 10n ** 12n);
    chain = {
      name: 'anvil',
      chainId: anvil.chainId,
      rpcUrl: anvil.rpcUrl,
      confirmations: 3,
      environments: ['test', 'live'],
      tokens: [
        { symbol: 'USDC', address: usdc, decimals: 6 },
        { symbol: 'DAI', address: dai, decimals: 18 },
      ],
    };
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('finds transfers of the watched tokens to the watched addresses, with block number, hash and log index', async () => {
    const reader = createChainReader(chain);
    const from = (await reader.head()) + 1n;
    const [a, b, unwatched] = [address(0), address(1), address(2)];
    const tx1 = await sendToken(anvil.rpcUrl, usdc, a, 12_340_000n);
    const tx2 = await sendToken(anvil.rpcUrl, dai, b, 5_000_000_000_000_000_001n, { from: 1 });
    await sendToken(anvil.rpcUrl, usdc, unwatched, 1n);
    await sendToken(anvil.rpcUrl, other, a, 99n);
    const tx3 = await sendToken(anvil.rpcUrl, usdc, a, 1n, { from: 2 });
    const to = await reader.head();

    const transfers = await reader.transfersTo([usdc, dai], [a, b], from, to);
    const client = await testChainClient(anvil.rpcUrl);
    const expected = await Promise.all(
      [
        { hash: tx1, token: usdc, from: anvilDevAccount(0).address, to: a, units: 12_340_000n },
        { hash: tx2, token: dai, from: anvilDevAccount(1).address, to: b, units: 5_000_000_000_000_000_001n },
        { hash: tx3, token: usdc, from: anvilDevAccount(2).address, to: a, units: 1n },
      ].map(async (t) => {
        const receipt = await client.getTransactionReceipt({ hash: t.hash });
        return {
          chainId: anvil.chainId,
          token: t.token,
          txHash: t.hash,
          logIndex: receipt.logs[0]!.logIndex,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          from: t.from,
          to: t.to,
          units: t.units,
        };
      }),
    );
    expect(transfers).toEqual(expected);
    expect(await reader.blockHash(expected[0]!.blockNumber)).toBe(expected[0]!.blockHash);

    // Lower-case recipients (as the address table keeps them) find the same.
    expect(await reader.transfersTo([usdc, dai], [a.toLowerCase() as Hex, b.toLowerCase() as Hex], from, to)).toEqual(expected);
    // Only the tokens asked for, only the range asked for.
    expect((await reader.transfersTo([dai], [a, b], from, to)).map((t) => t.txHash)).toEqual([tx2]);
    expect((await reader.transfersTo([usdc, dai], [a, b], expected[1]!.blockNumber, expected[1]!.blockNumber)).map((t) => t.txHash)).toEqual([tx2]);
    expect(await reader.transfersTo([usdc, dai], [a, b], to, from)).toEqual([]);
    expect(await reader.transfersTo([usdc, dai], [], from, to)).toEqual([]);
    expect(await reader.transfersTo([], [a], from, to)).toEqual([]);
  });

  it('splits many recipients and a long range into several calls and misses nothing', async () => {
    const recipients = Array.from({ length: 230 }, (_, i) => address(100 + i));
    const paid = recipients.filter((_, i) => i % 7 === 0); // 33 of them, spread over every chunk
    const reader = createChainReader(chain);
    const from = (await reader.head()) + 1n;
    for (const [i, to] of paid.entries()) {
      await sendToken(anvil.rpcUrl, i % 2 === 0 ? usdc : dai, to, BigInt(i + 1));
      if (i % 5 === 0) await mineBlocks(anvil.rpcUrl, 4); // gaps between transfers
    }
    const to = await reader.head();

    const whole = await reader.transfersTo([usdc, dai], recipients, from, to);
    expect(whole).toHaveLength(paid.length);
    expect(whole.map((t) => t.to)).toEqual(paid);
    expect(whole.map((t) => t.units)).toEqual(paid.map((_, i) => BigInt(i + 1)));

    const chunked = createChainReader(chain, { maxRecipientsPerQuery: 25, maxBlockRange: 3 });
    expect(await chunked.transfersTo([usdc, dai], recipients, from, to)).toEqual(whole);
    const single = createChainReader(chain, { maxRecipientsPerQuery: 1, maxBlockRange: 1 });
    expect(await single.transfersTo([usdc, dai], paid.slice(0, 4), from, to)).toEqual(whole.slice(0, 4));
  });

  it('sees the head and block hashes move with a reorg, and a dropped transfer disappear', async () => {
    const reader = createChainReader(chain);
    const recipient = address(9);
    const tx = await sendToken(anvil.rpcUrl, usdc, recipient, 777n);
    await mineBlocks(anvil.rpcUrl, 1);
    const head = await chainHead(anvil.rpcUrl);
    expect(await reader.head()).toBe(head.number);
    expect(await reader.blockHash(head.number)).toBe(head.hash);
    expect(await reader.blockHash(head.number + 100n)).toBeNull();
    const [found] = await reader.transfersTo([usdc], [recipient], head.number - 1n, head.number);
    expect(found!.txHash).toBe(tx);

    await reorgChain(anvil.rpcUrl, 2);
    expect(await reader.head()).toBe(head.number);
    expect(await reader.blockHash(found!.blockNumber)).not.toBe(found!.blockHash);
    expect(await reader.transfersTo([usdc], [recipient], head.number - 1n, head.number)).toEqual([]);
  });

  it('fails, rather than hangs, when the node is down', async () => {
    const down = await startAnvil();
    const reader = createChainReader({ ...chain, chainId: down.chainId, rpcUrl: down.rpcUrl }, { timeoutMs: 2000 });
    expect(await reader.head()).toBe(0n);
    await down.stop();
    await expect(reader.head()).rejects.toThrow();
    await expect(reader.transfersTo([usdc], [address(0)], 0n, 10n)).rejects.toThrow();
  });

  it("fails with the node's own message when it refuses a call", async () => {
    const reader = createChainReader(chain);
    const head = await reader.head();
    // anvil refuses a range past its head: the JSON-RPC error comes through, not an empty answer.
    await expect(reader.transfersTo([usdc], [address(0)], head, head + 1000n)).rejects.toThrow(/block|range|head|not found/i);
  });

  describe('against a stand-in node', () => {
    let server: Server;
    let answer: (request: IncomingMessage, body: string) => { status: number; body: string } | 'hang';
    const seen: Array<{ authorization?: string; body: string }> = [];
    let url: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => {
          seen.push({ authorization: request.headers.authorization, body });
          const reply = answer(request, body);
          if (reply !== 'hang') response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const result = (value: unknown) => (_: IncomingMessage, body: string) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: value }) });

    it('sends credentials in the node URL as Basic auth, and the path with its key', async () => {
      answer = result('0x2a');
      seen.length = 0;
      const reader = createChainReader({ ...chain, rpcUrl: url.replace('http://', 'http://user:s%40cret@') + '/v3/project-key' });
      expect(await reader.head()).toBe(42n);
      expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('user:s@cret').toString('base64')}`);
      expect(JSON.parse(seen[0]!.body)).toMatchObject({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] });
    });

    it('fails on an error answer, an HTTP error and a node that does not answer within the timeout', async () => {
      const reader = createChainReader({ ...chain, rpcUrl: url }, { timeoutMs: 500 });
      answer = (_, body) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32005, message: 'query returned more than 10000 results' } }) });
      await expect(reader.transfersTo([usdc], [address(0)], 0n, 10n)).rejects.toThrow(/more than 10000 results/);
      answer = () => ({ status: 429, body: 'slow down' });
      await expect(reader.head()).rejects.toThrow(/429/);
      answer = () => 'hang';
      const started = Date.now();
      await expect(reader.blockHash(1n)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
});
