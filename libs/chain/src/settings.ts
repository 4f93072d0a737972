// Crypto settings: the chains and tokens watched (CRYPTO_CHAINS) and the deposit key per environment
// (CRYPTO_XPUB_TEST, CRYPTO_XPUB_LIVE). Read once at start; anything wrong stops the service with every problem named.
import { ConfigError } from '@payments/config';
import { getAddress, isAddress } from 'viem';
import { extendedPublicKeyProblem } from './deposit-address';
import { MAX_TOKEN_DECIMALS, MIN_TOKEN_DECIMALS } from './units';

export type CryptoEnvironment = 'test' | 'live';
export const CRYPTO_ENVIRONMENTS: readonly CryptoEnvironment[] = ['test', 'live'];

export interface CryptoToken {
  symbol: string;
  /** EIP-55 checksummed. */
  address: `0x${string}`;
  decimals: number;
}

export interface CryptoChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  /**
   * Blocks on the chain from the transfer's own up to the head, inclusive, before a transfer counts:
   * 1 counts it once mined, 3 once two more blocks follow it (head - block + 1 >= confirmations).
   */
  confirmations: number;
  environments: readonly CryptoEnvironment[];
  tokens: readonly CryptoToken[];
}

export interface CryptoSettings {
  chains: readonly CryptoChain[];
  xpub: { test: string | null; live: string | null };
  /** True when the environment has a deposit key and at least one chain serves it. */
  configuredFor(environment: CryptoEnvironment): boolean;
  chainsFor(environment: CryptoEnvironment): readonly CryptoChain[];
}

type Env = Record<string, string | undefined>;

const CHAIN_KEYS = ['name', 'chain_id', 'rpc_url', 'confirmations', 'environments', 'tokens'];
const TOKEN_KEYS = ['symbol', 'address', 'decimals'];

/** Parses and checks the crypto settings; throws a ConfigError naming each wrong variable and field. */
export function readCryptoSettings(env: Env = process.env): CryptoSettings {
  const problems: string[] = [];
  const chains = readChains(env.CRYPTO_CHAINS, problems);
  const xpub = {
    test: readXpub(env, 'CRYPTO_XPUB_TEST', problems),
    live: readXpub(env, 'CRYPTO_XPUB_LIVE', problems),
  };
  // The same key for both would derive the same addresses for test and live sessions.
  if (xpub.test !== null && xpub.test === xpub.live) {
    problems.push('CRYPTO_XPUB_LIVE: must differ from CRYPTO_XPUB_TEST (one key would give test and live sessions the same addresses)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const chainsFor = (environment: CryptoEnvironment): readonly CryptoChain[] => chains.filter((c) => c.environments.includes(environment));
  return {
    chains,
    xpub,
    chainsFor,
    configuredFor: (environment) => xpub[environment] !== null && chainsFor(environment).length > 0,
  };
}

function readXpub(env: Env, name: string, problems: string[]): string | null {
  const value = env[name]?.trim();
  if (!value) return null;
  const problem = extendedPublicKeyProblem(value);
  if (problem) {
    // A private key is never echoed back into logs.
    problems.push(`${name}: ${problem}`);
    return null;
  }
  return value;
}

function readChains(raw: string | undefined, problems: string[]): CryptoChain[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    problems.push(`CRYPTO_CHAINS: is not valid JSON (${(error as Error).message})`);
    return [];
  }
  if (!Array.isArray(parsed)) {
    problems.push('CRYPTO_CHAINS: must be a JSON array of chains');
    return [];
  }
  const chains: CryptoChain[] = [];
  parsed.forEach((entry, i) => {
    const chain = readChain(entry, `CRYPTO_CHAINS[${i}]`, problems);
    if (chain) chains.push(chain);
  });
  for (const [field, key] of [['name', (c: CryptoChain) => c.name], ['chain_id', (c: CryptoChain) => String(c.chainId)]] as const) {
    const seen = new Set<string>();
    for (const chain of chains) {
      if (seen.has(key(chain))) problems.push(`CRYPTO_CHAINS: ${field} ${JSON.stringify(key(chain))} appears twice`);
      seen.add(key(chain));
    }
  }
  return chains;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKeys(value: Record<string, unknown>, known: string[], where: string, problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.push(`${where}.${key}: is not a known field (known: ${known.join(', ')})`);
  }
}

function readChain(entry: unknown, where: string, problems: string[]): CryptoChain | null {
  if (!isObject(entry)) {
    problems.push(`${where}: must be an object`);
    return null;
  }
  const before = problems.length;
  unknownKeys(entry, CHAIN_KEYS, where, problems);
  const { name, chain_id: chainId, rpc_url: rpcUrl, confirmations } = entry;
  if (typeof name !== 'string' || name.trim() === '') problems.push(`${where}.name: must be a non-empty string`);
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0) {
    problems.push(`${where}.chain_id: must be a positive integer (got ${JSON.stringify(chainId)})`);
  }
  if (typeof rpcUrl !== 'string' || !isHttpUrl(rpcUrl)) problems.push(`${where}.rpc_url: must be an http(s) URL (got ${JSON.stringify(redactUrl(rpcUrl))})`);
  if (typeof confirmations !== 'number' || !Number.isSafeInteger(confirmations) || confirmations < 1) {
    problems.push(`${where}.confirmations: must be an integer of at least 1 (got ${JSON.stringify(confirmations)})`);
  }
  let environments: CryptoEnvironment[] = [...CRYPTO_ENVIRONMENTS];
  if (entry.environments !== undefined) {
    const given = entry.environments;
    if (!Array.isArray(given) || given.length === 0 || !given.every((e) => CRYPTO_ENVIRONMENTS.includes(e as CryptoEnvironment))) {
      problems.push(`${where}.environments: must be a non-empty array of "test" and/or "live" (got ${JSON.stringify(given)})`);
    } else {
      environments = [...new Set(given as CryptoEnvironment[])];
    }
  }
  const tokens: CryptoToken[] = [];
  if (!Array.isArray(entry.tokens) || entry.tokens.length === 0) {
    problems.push(`${where}.tokens: must be a non-empty array of tokens`);
  } else {
    entry.tokens.forEach((t, j) => {
      const token = readToken(t, `${where}.tokens[${j}]`, problems);
      if (token) tokens.push(token);
    });
    const addresses = new Set<string>();
    const symbols = new Set<string>();
    for (const token of tokens) {
      if (addresses.has(token.address)) problems.push(`${where}.tokens: address ${token.address} appears twice`);
      if (symbols.has(token.symbol)) problems.push(`${where}.tokens: symbol ${token.symbol} appears twice`);
      addresses.add(token.address);
      symbols.add(token.symbol);
    }
  }
  if (problems.length > before) return null;
  return { name: (name as string).trim(), chainId: chainId as number, rpcUrl: rpcUrl as string, confirmations: confirmations as number, environments, tokens };
}

function readToken(entry: unknown, where: string, problems: string[]): CryptoToken | null {
  if (!isObject(entry)) {
    problems.push(`${where}: must be an object`);
    return null;
  }
  const before = problems.length;
  unknownKeys(entry, TOKEN_KEYS, where, problems);
  const { symbol, address, decimals } = entry;
  if (typeof symbol !== 'string' || symbol.trim() === '') problems.push(`${where}.symbol: must be a non-empty string`);
  // All lower case is taken as is (common in settings); mixed case must be a correct EIP-55 checksum.
  if (typeof address !== 'string' || !isAddress(address)) {
    problems.push(`${where}.address: must be a 0x-prefixed 20-byte contract address (got ${JSON.stringify(address)})`);
  }
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < MIN_TOKEN_DECIMALS || decimals > MAX_TOKEN_DECIMALS) {
    problems.push(`${where}.decimals: must be an integer from ${MIN_TOKEN_DECIMALS} to ${MAX_TOKEN_DECIMALS} (got ${JSON.stringify(decimals)})`);
  }
  if (problems.length > before) return null;
  return { symbol: (symbol as string).trim(), address: getAddress(address as string), decimals: decimals as number };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** RPC URLs often carry an API key in the path or the password: only scheme and host are shown. */
function redactUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return value.length > 40 ? `${value.slice(0, 12)}…` : value;
  }
}
