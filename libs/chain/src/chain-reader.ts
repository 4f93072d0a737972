// Reads ERC-20 Transfer logs to watched addresses over JSON-RPC (eth_getLogs), the chain head and block hashes.
// Stateless: the watcher decides ranges, confirmations and reorgs; this only asks the node and shapes the answers.
import { Pool } from 'undici';
import { createPublicClient, custom, defineChain, getAddress, parseAbiItem, type EIP1193RequestFn, type PublicClient } from 'viem';
import type { CryptoChain } from './settings';

type Hex = `0x${string}`;

export interface ChainTransfer {
  chainId: number;
  /** EIP-55 checksummed, as are `from` and `to`. */
  token: Hex;
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
  from: Hex;
  to: Hex;
  units: bigint;
}

export interface ChainReader {
  /** The latest block number. */
  head(): Promise<bigint>;
  /** The hash of block `number` on the node's current chain, or null when it has no such block (yet). */
  blockHash(number: bigint): Promise<Hex | null>;
  /**
   * Transfer logs of `tokens` to any of `recipients` in blocks fromBlock..toBlock (both included), ordered by
   * block and log index. Recipients and blocks are split into several eth_getLogs calls as the limits require.
   * toBlock must not be past the head: nodes differ there (anvil refuses the call, others answer nothing).
   */
  transfersTo(tokens: readonly Hex[], recipients: readonly Hex[], fromBlock: bigint, toBlock: bigint): Promise<ChainTransfer[]>;
}

export interface ChainReaderOptions {
  /** Blocks per eth_getLogs call (public nodes refuse wide ranges; 1000 and 2000 are common caps). */
  maxBlockRange?: number;
  /** Recipients per eth_getLogs call (an OR list in topic 2; nodes cap the filter's size). */
  maxRecipientsPerQuery?: number;
  /** Per request; a node that hangs must not hold the watcher. */
  timeoutMs?: number;
}

export const DEFAULT_MAX_BLOCK_RANGE = 1000;
export const DEFAULT_MAX_RECIPIENTS_PER_QUERY = 500;
const DEFAULT_TIMEOUT_MS = 10_000;

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export function createChainReader(chain: CryptoChain, options: ChainReaderOptions = {}): ChainReader {
  const maxBlockRange = BigInt(positive(options.maxBlockRange ?? DEFAULT_MAX_BLOCK_RANGE, 'maxBlockRange'));
  const maxRecipients = positive(options.maxRecipientsPerQuery ?? DEFAULT_MAX_RECIPIENTS_PER_QUERY, 'maxRecipientsPerQuery');
  const client: PublicClient = createPublicClient({
    chain: defineChain({
      id: chain.chainId,
      name: chain.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    }),
    // No retries here: the watcher's loop retries on its own schedule and records how far it got.
    transport: custom({ request: jsonRpcOverHttp(chain.rpcUrl, options.timeoutMs ?? DEFAULT_TIMEOUT_MS) }, { retryCount: 0 }),
    // viem caches the block number for a polling interval by default; the watcher needs the head as it is now.
    cacheTime: 0,
  });

  return {
    head: () => client.getBlockNumber({ cacheTime: 0 }),

    async blockHash(number) {
      const block = await client.request({ method: 'eth_getBlockByNumber', params: [`0x${number.toString(16)}`, false] });
      return block?.hash ?? null;
    },

    async transfersTo(tokens, recipients, fromBlock, toBlock) {
      if (tokens.length === 0 || recipients.length === 0 || fromBlock > toBlock) return [];
      const recipientChunks: Hex[][] = [];
      for (let i = 0; i < recipients.length; i += maxRecipients) recipientChunks.push(recipients.slice(i, i + maxRecipients));
      const transfers: ChainTransfer[] = [];
      for (let start = fromBlock; start <= toBlock; start += maxBlockRange) {
        const end = start + maxBlockRange - 1n < toBlock ? start + maxBlockRange - 1n : toBlock;
        for (const chunk of recipientChunks) {
          const logs = await client.getLogs({
            address: [...tokens],
            event: TRANSFER_EVENT,
            args: { to: chunk },
            fromBlock: start,
            toBlock: end,
            strict: true,
          });
          for (const log of logs) {
            // A log of a block the node has just dropped, or one not yet in a block, is not a transfer to count.
            if (log.removed || log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) continue;
            transfers.push({
              chainId: chain.chainId,
              token: getAddress(log.address),
              txHash: log.transactionHash,
              logIndex: log.logIndex,
              blockNumber: log.blockNumber,
              blockHash: log.blockHash,
              from: getAddress(log.args.from),
              to: getAddress(log.args.to),
              units: log.args.value,
            });
          }
        }
      }
      transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
      return transfers;
    },
  };
}

/**
 * JSON-RPC over HTTP(S) on a kept-alive undici pool. viem's own http transport goes through fetch, whose web streams
 * and abort signals were half of an idle watcher's CPU (a step is five small calls a block); this sends the same
 * request and reads the same answer. An answer's `error` is thrown with its JSON-RPC code, which viem maps to its
 * RPC error types; a transport failure or a non-2xx status is thrown as is.
 */
function jsonRpcOverHttp(url: string, timeoutMs: number): EIP1193RequestFn {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 4, connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const path = `${target.pathname}${target.search}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // A node URL with credentials in it (https://user:secret@host/...) is sent with them as Basic auth, as viem does.
  if (target.username) headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
  let id = 0;
  return (async ({ method, params }: { method: string; params?: unknown }) => {
    const response = await pool.request({
      method: 'POST',
      path,
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? [] }),
    });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode > 299) throw new Error(`HTTP ${response.statusCode} from the node: ${text.slice(0, 200)}`);
    const answer = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code, data: answer.error.data });
    return answer.result;
  }) as EIP1193RequestFn;
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}
