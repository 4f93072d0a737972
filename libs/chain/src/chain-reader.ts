// Reads ERC-20 Transfer logs to watched addresses over JSON-RPC (eth_getLogs), the chain head and block hashes.
// Stateless: the watcher decides ranges, confirmations and reorgs; this only asks the node and shapes the answers.
import { createPublicClient, defineChain, getAddress, http, parseAbiItem, type PublicClient } from 'viem';
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
    transport: http(chain.rpcUrl, { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, retryCount: 0 }),
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

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (got ${value})`);
  return value;
}
