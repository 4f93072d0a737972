import { deriveDepositAddress, type CryptoChain, type CryptoSettings } from '@payments/chain';
import type { Environment } from '@payments/ids';

/**
 * Where deposit addresses come from: the environment's extended public key (CRYPTO_XPUB_TEST / _LIVE), child
 * `0/index`. Crypto is configured for an environment when its key is set and a chain serves it.
 */
export interface DepositAddresses {
  configuredFor(environment: Environment): boolean;
  /** The EIP-55 address at `index` of the environment's key; only for a configured environment. */
  addressAt(environment: Environment, index: number): string;
  /** The chains (with their tokens) a customer may pay on in the environment: none unless it is configured. */
  chainsFor(environment: Environment): readonly CryptoChain[];
}

/** No chain configured anywhere: test mode keeps its sandbox, live offers no crypto. */
export const NO_DEPOSIT_ADDRESSES: DepositAddresses = {
  configuredFor: () => false,
  addressAt: (environment) => {
    throw new Error(`crypto is not configured for ${environment}`);
  },
  chainsFor: () => [],
};

/** The deposit addresses of the crypto settings (CRYPTO_CHAINS, CRYPTO_XPUB_TEST, CRYPTO_XPUB_LIVE). */
export function depositAddressesOf(settings: CryptoSettings): DepositAddresses {
  return {
    configuredFor: (environment) => settings.configuredFor(environment),
    addressAt: (environment, index) => {
      const xpub = settings.xpub[environment];
      if (xpub === null || !settings.configuredFor(environment)) throw new Error(`crypto is not configured for ${environment}`);
      return deriveDepositAddress(xpub, index);
    },
    chainsFor: (environment) => (settings.configuredFor(environment) ? settings.chainsFor(environment) : []),
  };
}
