import type { CheckoutSession } from '@payments/contracts';
import type { CryptoOption } from './page/crypto-deposit';

/**
 * The networks + tokens the checkout offers for crypto: those sessions answers with the session (it holds the crypto
 * settings; the gateway reads none), for an intent that lists crypto. Null when there are none: test mode then
 * keeps its sandbox, live says crypto is not available.
 */
export function cryptoOptionsOf(found: CheckoutSession): CryptoOption[] | null {
  if (found.kind !== 'payment_intent' || !found.session.available_methods.includes('crypto')) return null;
  const options = (found.crypto_options ?? []).map((o) => ({
    chainId: o.chain_id,
    network: o.network,
    symbol: o.symbol,
    token: o.token as `0x${string}`,
    decimals: o.decimals,
    confirmations: o.confirmations,
  }));
  return options.length > 0 ? options : null;
}

/** The customer's choice from a form or a link, if the session offers it (the token compared case-blind). */
export function findCryptoOption(found: CheckoutSession, network: unknown, token: unknown): CryptoOption | null {
  if (typeof network !== 'string' || typeof token !== 'string' || !/^\d{1,12}$/.test(network) || !/^0x[0-9a-fA-F]{40}$/.test(token)) return null;
  return cryptoOptionsOf(found)?.find((o) => o.chainId === Number(network) && o.token.toLowerCase() === token.toLowerCase()) ?? null;
}
