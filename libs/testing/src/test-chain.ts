// What tests do on a local anvil chain: deploy an ERC-20 test token (compiled once by solc-js from OpenZeppelin's
// ERC20, cached on disk), send it from anvil's dev accounts, mine blocks, reorganise the chain, read the head.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  type Abi,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { REPO_ROOT } from './services';

type Address = `0x${string}`;

/** anvil's well-known development mnemonic (public; its accounts hold test ether on every fresh anvil). */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

const devAccounts = new Map<number, HDAccount>();
/** Anvil's dev account `index` (0..9 exist by default), with its private key, at m/44'/60'/0'/0/index. */
export function anvilDevAccount(index = 0): HDAccount {
  let account = devAccounts.get(index);
  if (!account) {
    account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
    devAccounts.set(index, account);
  }
  return account;
}

// ---- the test token ----

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A stablecoin stand-in for tests: any decimals, the deployer gets the supply, anyone may mint more.
contract TestToken is ERC20 {
    uint8 private immutable _tokenDecimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply_) ERC20(name_, symbol_) {
        _tokenDecimals = decimals_;
        _mint(msg.sender, supply_);
    }

    function decimals() public view override returns (uint8) {
        return _tokenDecimals;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
`;

/** The ERC-20 functions tests call (the compiled ABI has them too; this one is typed). */
export const ERC20_TEST_ABI = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ type: 'bool' }] },
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
  { type: 'function', name: 'symbol', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  { type: 'function', name: 'mint', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [] },
] as const;

interface CompiledToken {
  abi: Abi;
  bytecode: Hex;
}

let compiled: CompiledToken | null = null;

/** The token's ABI and bytecode: from .cache/chain/ when this source and compiler were compiled before. */
export function compiledTestToken(): CompiledToken {
  if (compiled) return compiled;
  const solc = require('solc') as { version(): string; compile(input: string, callbacks: { import(path: string): { contents: string } | { error: string } }): string };
  const ozVersion = (require('@openzeppelin/contracts/package.json') as { version: string }).version;
  const key = createHash('sha256').update(TOKEN_SOURCE).update(solc.version()).update(ozVersion).digest('hex').slice(0, 16);
  const file = join(REPO_ROOT, '.cache', 'chain', `test-token-${key}.json`);
  if (existsSync(file)) {
    compiled = JSON.parse(readFileSync(file, 'utf8')) as CompiledToken;
    return compiled;
  }
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: TOKEN_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { 'TestToken.sol': { TestToken: ['abi', 'evm.bytecode.object'] } } },
  };
  const findImports = (path: string): { contents: string } | { error: string } => {
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch {
      return { error: `not found in node_modules: ${path}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`the test token does not compile: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts!['TestToken.sol']!['TestToken']!;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  // Written whole then renamed: parallel test workers may compile at once, and none may read half a file.
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(compiled));
  renameSync(temp, file);
  return compiled;
}

// ---- clients ----

const chains = new Map<string, Promise<Chain>>();
function chainOf(rpcUrl: string): Promise<Chain> {
  let chain = chains.get(rpcUrl);
  if (!chain) {
    chain = rpc<string>(rpcUrl, 'eth_chainId', []).then((id) =>
      defineChain({ id: Number(BigInt(id)), name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } }),
    );
    chain.catch(() => chains.delete(rpcUrl));
    chains.set(rpcUrl, chain);
  }
  return chain;
}

/** A viem public client on the chain (polling every 100 ms: blocks on anvil come fast). */
export async function testChainClient(rpcUrl: string): Promise<PublicClient> {
  return createPublicClient({ chain: await chainOf(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 100 });
}

async function walletOf(rpcUrl: string, from: number) {
  return createWalletClient({ account: anvilDevAccount(from), chain: await chainOf(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 100 });
}

/** A raw JSON-RPC call (anvil's own methods are not in viem's typed schema). */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method} failed on ${rpcUrl}: ${body.error.message} (${body.error.code})`);
  return body.result as T;
}

// One account's transactions are sent one after another, so two concurrent sends never take the same nonce.
const sendQueues = new Map<string, Promise<unknown>>();
function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = sendQueues.get(key) ?? Promise.resolve();
  const next = previous.then(task, task);
  sendQueues.set(key, next.catch(() => undefined));
  return next;
}

// ---- what tests do ----

export interface TestTokenSpec {
  name: string;
  symbol: string;
  decimals: number;
}

/** Deploys a test ERC-20 from dev account 0 (which gets a supply of 10^12 whole tokens); gives its EIP-55 address. */
export async function deployTestToken(rpcUrl: string, spec: TestTokenSpec): Promise<Address> {
  const { abi, bytecode } = compiledTestToken();
  const supply = 10n ** 12n * 10n ** BigInt(spec.decimals);
  const wallet = await walletOf(rpcUrl, 0);
  const hash = await serialised(`${rpcUrl}#0`, () => wallet.deployContract({ abi, bytecode, args: [spec.name, spec.symbol, spec.decimals, supply] }));
  const receipt = await (await testChainClient(rpcUrl)).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${spec.symbol} failed in ${hash}`);
  return getAddress(receipt.contractAddress);
}

export interface SendTokenOptions {
  /** The index of the anvil dev account that sends (0 unless told; it holds the deployed supply). */
  from?: number;
  /** Wait until the transfer is in a block (default true); false returns once the node has taken it. */
  wait?: boolean;
}

/** Transfers `units` of `token` (smallest units) to `to` and gives the transaction hash. */
export async function sendToken(rpcUrl: string, token: Address, to: Address, units: bigint, options: SendTokenOptions = {}): Promise<Hex> {
  const from = options.from ?? 0;
  const wallet = await walletOf(rpcUrl, from);
  const hash = await serialised(`${rpcUrl}#${from}`, () =>
    // A fixed gas limit: estimating first would cost a round trip and fail for a transfer queued behind another.
    wallet.writeContract({ address: token, abi: ERC20_TEST_ABI, functionName: 'transfer', args: [to, units], gas: 100_000n }),
  );
  if (options.wait ?? true) {
    const receipt = await (await testChainClient(rpcUrl)).waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`the transfer ${hash} reverted (does dev account ${from} hold ${units} units? only account 0 gets a supply; mintToken gives others some)`);
  }
  return hash;
}

/** Mints `units` of a test token to `to` (the test token lets anyone mint), mined before it returns. */
export async function mintToken(rpcUrl: string, token: Address, to: Address, units: bigint): Promise<Hex> {
  const wallet = await walletOf(rpcUrl, 0);
  const hash = await serialised(`${rpcUrl}#0`, () => wallet.writeContract({ address: token, abi: ERC20_TEST_ABI, functionName: 'mint', args: [to, units], gas: 100_000n }));
  const receipt = await (await testChainClient(rpcUrl)).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`minting ${units} units of ${token} failed in ${hash}`);
  return hash;
}

/** The token balance of `owner`, in smallest units. */
export async function tokenBalance(rpcUrl: string, token: Address, owner: Address): Promise<bigint> {
  return (await testChainClient(rpcUrl)).readContract({ address: token, abi: ERC20_TEST_ABI, functionName: 'balanceOf', args: [owner] });
}

/** The signed bytes of a transaction the node has seen, to broadcast again once a reorg dropped it. */
export async function rawTransaction(rpcUrl: string, hash: Hex): Promise<Hex> {
  const raw = await rpc<Hex | null>(rpcUrl, 'eth_getRawTransactionByHash', [hash]);
  if (!raw) throw new Error(`the node does not know the transaction ${hash}`);
  return raw;
}

/**
 * Broadcasts a signed transaction again (eth_sendRawTransaction), as a node puts a transaction of dropped blocks
 * back in its pool: the same hash, mined anew (at once on an automining anvil). Waits for its block unless told.
 */
export async function resendTransaction(rpcUrl: string, raw: Hex, options: { wait?: boolean } = {}): Promise<Hex> {
  const hash = await rpc<Hex>(rpcUrl, 'eth_sendRawTransaction', [raw]);
  if (options.wait ?? true) {
    const receipt = await (await testChainClient(rpcUrl)).waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`the transaction ${hash} reverted when sent again`);
  }
  return hash;
}

/** Mines `n` empty blocks at once (anvil_mine). */
export async function mineBlocks(rpcUrl: string, n: number): Promise<void> {
  await rpc(rpcUrl, 'anvil_mine', [`0x${n.toString(16)}`]);
}

export interface ChainHead {
  number: bigint;
  hash: Hex;
}

/** The latest block's number and hash. */
export async function chainHead(rpcUrl: string): Promise<ChainHead> {
  const block = await rpc<{ number: string; hash: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return { number: BigInt(block.number), hash: block.hash };
}

/** The hash of block `number` on the chain as it is now, or null when the chain is not that long. */
export async function blockHashAt(rpcUrl: string, number: bigint): Promise<Hex | null> {
  const block = await rpc<{ hash: Hex } | null>(rpcUrl, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
  return block?.hash ?? null;
}

/** A token transfer to mine into the replacement blocks of a reorg. */
export interface ReorgTransfer {
  token: Address;
  to: Address;
  units: bigint;
  /** Dev account index of the sender (0 unless told). */
  from?: number;
  /** Which of the new blocks holds it: 0 is the first block after the common ancestor, up to depth - 1. */
  blockOffset: number;
}

/** A signed transaction (rawTransaction) to mine again into the replacement blocks of a reorg: the same hash. */
export interface ReorgRawTransaction {
  raw: Hex;
  /** As ReorgTransfer's. */
  blockOffset: number;
}

/**
 * Replaces the last `depth` blocks by as many new ones (anvil_reorg): same height, other hashes. The transactions
 * of the dropped blocks are gone (not mined again) unless given in `transfers`, which are mined into the new
 * blocks at their offsets, in the order given: a transfer that "moves" to another block (or, given as a signed
 * transaction, the very same transaction at another place), or vanishes when left out.
 */
export async function reorgChain(rpcUrl: string, depth: number, options: { transfers?: ReadonlyArray<ReorgTransfer | ReorgRawTransaction> } = {}): Promise<ChainHead> {
  const pairs = (options.transfers ?? []).map((t) => {
    if (t.blockOffset < 0 || t.blockOffset >= depth) throw new Error(`blockOffset ${t.blockOffset} is outside the ${depth} new blocks`);
    if ('raw' in t) return [t.raw, t.blockOffset];
    const tx = {
      from: anvilDevAccount(t.from ?? 0).address,
      to: t.token,
      gas: '0x186a0',
      data: encodeFunctionData({ abi: ERC20_TEST_ABI, functionName: 'transfer', args: [t.to, t.units] }),
    };
    return [tx, t.blockOffset];
  });
  await rpc(rpcUrl, 'anvil_reorg', [depth, pairs]);
  return chainHead(rpcUrl);
}

/** Drops the last `depth` blocks (anvil_rollback): the chain gets shorter; their transactions are gone. */
export async function rollbackChain(rpcUrl: string, depth: number): Promise<ChainHead> {
  await rpc(rpcUrl, 'anvil_rollback', [depth]);
  return chainHead(rpcUrl);
}
