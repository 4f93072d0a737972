// Live crypto payments on EVM chains: the settings (chains, tokens, deposit keys), deposit addresses derived from
// an extended public key, exact token units <-> cents, and a JSON-RPC reader of ERC-20 transfers.
export {
  CRYPTO_ENVIRONMENTS,
  readCryptoSettings,
  type CryptoChain,
  type CryptoEnvironment,
  type CryptoSettings,
  type CryptoToken,
} from './settings';
export { ACCOUNT_KEY_DEPTH, deriveDepositAddress, extendedPublicKeyProblem } from './deposit-address';
export { centsToTokenUnits, MAX_TOKEN_DECIMALS, MIN_TOKEN_DECIMALS, tokenUnitsToCents } from './units';
export {
  createChainReader,
  DEFAULT_MAX_BLOCK_RANGE,
  DEFAULT_MAX_RECIPIENTS_PER_QUERY,
  type ChainReader,
  type ChainReaderOptions,
  type ChainTransfer,
} from './chain-reader';
