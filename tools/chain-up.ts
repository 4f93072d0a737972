// The local chain's settings for `npm start` (scripts/chain.sh runs this once anvil answers): deploys the two test
// stablecoins (6 and 18 decimals, as USDC and DAI have) when the chain does not hold them yet, and writes what the
// services take from it to --out: CRYPTO_CHAINS and the two environments' extended public keys. The keys are
// development keys derived from anvil's well-known mnemonic (accounts 1' and 2', not the dev accounts at 0'), so a
// developer can sweep what the local chain received; production takes its own from the operator (docs).
// Usage: node -r ./tools/swc-register.js tools/chain-up.ts --rpc http://127.0.0.1:8545 --out .cache/chain/chain.json
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { ANVIL_MNEMONIC, deployTestToken, rpc } from '@payments/testing';

interface LocalChain {
  rpc_url: string;
  chain_id: number;
  tokens: Array<{ symbol: string; address: string; decimals: number }>;
  xpub_test: string;
  xpub_live: string;
}

const TOKENS = [
  { name: 'Test USD Coin', symbol: 'TUSDC', decimals: 6 },
  { name: 'Test Dai', symbol: 'TDAI', decimals: 18 },
];
// Confirmations on the local chain (a block a second): a payment counts about three seconds after it is mined.
const CONFIRMATIONS = 3;

function arg(name: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (!value) throw new Error(`chain-up: --${name} is required`);
  return value;
}

function developmentXpub(account: number): string {
  return HDKey.fromMasterSeed(mnemonicToSeedSync(ANVIL_MNEMONIC)).derive(`m/44'/60'/${account}'`).publicExtendedKey;
}

async function deployed(rpcUrl: string, address: string): Promise<boolean> {
  return (await rpc<string>(rpcUrl, 'eth_getCode', [address, 'latest'])) !== '0x';
}

async function main(): Promise<void> {
  const rpcUrl = arg('rpc');
  const out = arg('out');
  const chainId = Number.parseInt(await rpc<string>(rpcUrl, 'eth_chainId', []), 16);
  const known = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as LocalChain) : null;
  let tokens = known?.chain_id === chainId ? known.tokens : [];
  const present = await Promise.all(tokens.map((token) => deployed(rpcUrl, token.address)));
  if (tokens.length !== TOKENS.length || present.includes(false)) {
    // A new chain (or one whose state was removed): the tokens are deployed again, at new addresses.
    tokens = [];
    for (const token of TOKENS) tokens.push({ symbol: token.symbol, address: await deployTestToken(rpcUrl, token), decimals: token.decimals });
    console.log(`chain: deployed the test tokens ${tokens.map((t) => `${t.symbol} ${t.address}`).join(', ')}`);
  }
  const chain: LocalChain = { rpc_url: rpcUrl, chain_id: chainId, tokens, xpub_test: developmentXpub(1), xpub_live: developmentXpub(2) };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(chain, null, 2)}\n`);
  // The settings as the services read them (scripts/start.sh exports them unless the caller set its own).
  const settings = [{ name: 'local', chain_id: chainId, rpc_url: rpcUrl, confirmations: CONFIRMATIONS, tokens }];
  writeFileSync(`${dirname(out)}/crypto.env`, `CRYPTO_CHAINS='${JSON.stringify(settings)}'\nCRYPTO_XPUB_TEST=${chain.xpub_test}\nCRYPTO_XPUB_LIVE=${chain.xpub_live}\n`);
  console.log(`chain: local chain ${chainId} at ${rpcUrl}; tokens ${tokens.map((t) => `${t.symbol} (${t.decimals} decimals) ${t.address}`).join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
