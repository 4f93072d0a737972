import type { CryptoSettings } from '@payments/chain';
import type { CryptoOption } from './page/crypto-deposit';

/**
 * The networks + tokens the checkout offers for crypto, from the crypto settings: per environment, only when
 * crypto is configured for it (its extended public key set and a chain serving it). Otherwise null, and test mode
 * keeps its sandbox.
 */
export class CheckoutCrypto {
  constructor(private readonly settings: CryptoSettings | null) {}

  optionsFor(environment: 'test' | 'live'): CryptoOption[] | null {
    if (!this.settings?.configuredFor(environment)) return null;
    const options = this.settings
      .chainsFor(environment)
      .flatMap((chain) => chain.tokens.map((token) => ({ chainId: chain.chainId, network: chain.name, symbol: token.symbol, token: token.address, decimals: token.decimals, confirmations: chain.confirmations })));
    return options.length > 0 ? options : null;
  }

  /** The customer's choice from a form or a link, if it is one the environment offers (token compared case-blind). */
  find(environment: 'test' | 'live', network: unknown, token: unknown): CryptoOption | null {
    if (typeof network !== 'string' || typeof token !== 'string' || !/^\d{1,12}$/.test(network) || !/^0x[0-9a-fA-F]{40}$/.test(token)) return null;
    return this.optionsFor(environment)?.find((o) => o.chainId === Number(network) && o.token.toLowerCase() === token.toLowerCase()) ?? null;
  }
}
