import { randomBytes } from 'node:crypto';
import { ConfigError } from '@payments/config';
import { HDKey } from 'viem/accounts';
import { readCryptoSettings } from './index';

const account = (): HDKey => HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'");
const XPUB_TEST = account().publicExtendedKey;
const XPUB_LIVE = account().publicExtendedKey;
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';

const chain = (overrides: Record<string, unknown> = {}) => ({
  name: 'anvil',
  chain_id: 31337,
  rpc_url: 'http://127.0.0.1:8545',
  confirmations: 3,
  tokens: [{ symbol: 'USDC', address: USDC, decimals: 6 }],
  ...overrides,
});

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    readCryptoSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('crypto settings', () => {
  it('read chains, tokens and keys, with both environments by default', () => {
    const settings = readCryptoSettings({
      CRYPTO_CHAINS: JSON.stringify([chain(), chain({ name: 'live-only', chain_id: 1, rpc_url: 'https://rpc.example/key', environments: ['live'], confirmations: 12 })]),
      CRYPTO_XPUB_TEST: XPUB_TEST,
      CRYPTO_XPUB_LIVE: XPUB_LIVE,
    });
    expect(settings.chains).toHaveLength(2);
    expect(settings.chains[0]).toEqual({
      name: 'anvil',
      chainId: 31337,
      rpcUrl: 'http://127.0.0.1:8545',
      confirmations: 3,
      environments: ['test', 'live'],
      tokens: [{ symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 }],
    });
    expect(settings.chainsFor('test').map((c) => c.name)).toEqual(['anvil']);
    expect(settings.chainsFor('live').map((c) => c.name)).toEqual(['anvil', 'live-only']);
    expect(settings.xpub).toEqual({ test: XPUB_TEST, live: XPUB_LIVE });
    expect(settings.configuredFor('test')).toBe(true);
    expect(settings.configuredFor('live')).toBe(true);
  });

  it('configure an environment only with its key and a chain serving it', () => {
    const none = readCryptoSettings({});
    expect(none.chains).toEqual([]);
    expect(none.configuredFor('test')).toBe(false);
    expect(readCryptoSettings({ CRYPTO_CHAINS: '[]', CRYPTO_XPUB_TEST: XPUB_TEST }).configuredFor('test')).toBe(false);
    expect(readCryptoSettings({ CRYPTO_CHAINS: JSON.stringify([chain()]), CRYPTO_XPUB_TEST: '' }).configuredFor('test')).toBe(false);
    const testOnly = readCryptoSettings({ CRYPTO_CHAINS: JSON.stringify([chain({ environments: ['test'] })]), CRYPTO_XPUB_TEST: XPUB_TEST, CRYPTO_XPUB_LIVE: XPUB_LIVE });
    expect(testOnly.configuredFor('test')).toBe(true);
    expect(testOnly.configuredFor('live')).toBe(false);
  });

  it('refuse an extended private key, naming the variable and never echoing the key', () => {
    const xprv = account().privateExtendedKey;
    const problems = problemsOf({ CRYPTO_XPUB_LIVE: xprv });
    expect(problems).toEqual([expect.stringMatching(/^CRYPTO_XPUB_LIVE: is an extended PRIVATE key/)]);
    expect(problems.join('\n')).not.toContain(xprv.slice(4, 30));
  });

  it('refuse a key that is not account-level, garbage, and one key for both environments', () => {
    const deep = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'/0").publicExtendedKey;
    expect(problemsOf({ CRYPTO_XPUB_TEST: deep })).toEqual([expect.stringMatching(/^CRYPTO_XPUB_TEST: must be the account-level key \(depth 3/)]);
    expect(problemsOf({ CRYPTO_XPUB_TEST: 'hello' })).toEqual([expect.stringMatching(/^CRYPTO_XPUB_TEST: is not a valid BIP32 extended public key/)]);
    expect(problemsOf({ CRYPTO_XPUB_TEST: XPUB_TEST, CRYPTO_XPUB_LIVE: XPUB_TEST })).toEqual([expect.stringMatching(/^CRYPTO_XPUB_LIVE: must differ from CRYPTO_XPUB_TEST/)]);
  });

  it('name every wrong chain and token field', () => {
    expect(problemsOf({ CRYPTO_CHAINS: '{not json' })).toEqual([expect.stringMatching(/^CRYPTO_CHAINS: is not valid JSON/)]);
    expect(problemsOf({ CRYPTO_CHAINS: '{}' })).toEqual(['CRYPTO_CHAINS: must be a JSON array of chains']);
    const problems = problemsOf({
      CRYPTO_CHAINS: JSON.stringify([
        chain({ name: '', chain_id: 0, rpc_url: 'ftp://x', confirmations: 0, environments: ['prod'], chainId: 5 }),
        chain({ tokens: [{ symbol: 'USDC', address: '0x1234', decimals: 1 }, { symbol: 'DAI', address: '0xA0B86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 18, extra: true }] }),
        chain({ tokens: [] }),
        chain({ tokens: [{ symbol: 'A', address: USDC, decimals: 6 }, { symbol: 'A', address: USDC, decimals: 6 }] }),
      ]),
    });
    expect(problems).toEqual([
      expect.stringMatching(/^CRYPTO_CHAINS\[0\]\.chainId: is not a known field/),
      'CRYPTO_CHAINS[0].name: must be a non-empty string',
      'CRYPTO_CHAINS[0].chain_id: must be a positive integer (got 0)',
      'CRYPTO_CHAINS[0].rpc_url: must be an http(s) URL (got "ftp://x/…")',
      'CRYPTO_CHAINS[0].confirmations: must be an integer of at least 1 (got 0)',
      'CRYPTO_CHAINS[0].environments: must be a non-empty array of "test" and/or "live" (got ["prod"])',
      'CRYPTO_CHAINS[1].tokens[0].address: must be a 0x-prefixed 20-byte contract address (got "0x1234")',
      'CRYPTO_CHAINS[1].tokens[0].decimals: must be an integer from 2 to 77 (got 1)',
      expect.stringMatching(/^CRYPTO_CHAINS\[1\]\.tokens\[1\]\.extra: is not a known field/),
      'CRYPTO_CHAINS[1].tokens[1].address: must be a 0x-prefixed 20-byte contract address (got "0xA0B86991c6218b36c1d19D4a2e9Eb0cE3606eB48")',
      'CRYPTO_CHAINS[2].tokens: must be a non-empty array of tokens',
      'CRYPTO_CHAINS[3].tokens: address 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 appears twice',
      'CRYPTO_CHAINS[3].tokens: symbol A appears twice',
    ]);
  });

  it('refuse two chains with one name or chain id, and hide an RPC URL\'s key', () => {
    expect(problemsOf({ CRYPTO_CHAINS: JSON.stringify([chain(), chain({ rpc_url: 'http://127.0.0.1:8546' })]) })).toEqual([
      'CRYPTO_CHAINS: name "anvil" appears twice',
      'CRYPTO_CHAINS: chain_id "31337" appears twice',
    ]);
    const problems = problemsOf({ CRYPTO_CHAINS: JSON.stringify([chain({ rpc_url: 'wss://user:secret@node.example/v3/apikey', confirmations: 1 })]) });
    expect(problems).toEqual(['CRYPTO_CHAINS[0].rpc_url: must be an http(s) URL (got "wss://node.example/…")']);
  });
});
