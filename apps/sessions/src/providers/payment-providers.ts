import type { Environment } from '@payments/ids';
import type { SessionsConfig } from '../config';
import { INTENT_PAYMENT_METHODS, type IntentPaymentMethod } from '../domain';
import { LahzaProvider } from './lahza/lahza.provider';
import type { PaymentProvider } from './payment-provider';

/** The methods a real provider takes, by name. */
export type ProviderMethod = 'lahza';

/**
 * The providers configured for each environment: Lahza with its live key for live sessions and its test key for
 * test sessions. A method without a key for an environment is not offered there (test mode keeps its sandboxes).
 */
export class PaymentProviders {
  private readonly byEnvironment: Record<Environment, PaymentProvider | null>;

  constructor(config: Pick<SessionsConfig, 'LAHZA_BASE_URL' | 'LAHZA_LIVE_SECRET_KEY' | 'LAHZA_TEST_SECRET_KEY' | 'LAHZA_TIMEOUT_MS' | 'LAHZA_SIGNATURE_ALGORITHM'>) {
    const lahza = (secretKey: string | undefined) =>
      secretKey
        ? new LahzaProvider({ baseUrl: config.LAHZA_BASE_URL, secretKey, timeoutMs: config.LAHZA_TIMEOUT_MS, signatureAlgorithm: config.LAHZA_SIGNATURE_ALGORITHM })
        : null;
    this.byEnvironment = { live: lahza(config.LAHZA_LIVE_SECRET_KEY), test: lahza(config.LAHZA_TEST_SECRET_KEY) };
  }

  /** The provider of `method` in `environment`, or null when none is configured. */
  of(method: string, environment: Environment): PaymentProvider | null {
    return method === 'lahza' ? this.byEnvironment[environment] : null;
  }

  /**
   * The intent-surface methods a customer can really pay with in `environment`: every one in test mode (each has a
   * sandbox, crypto a real test chain when one is configured); live, `togo` (wallets are built in), `lahza` only with
   * its live key, `crypto` only when `cryptoConfigured` (a live chain and CRYPTO_XPUB_LIVE).
   */
  usableIn(environment: Environment, cryptoConfigured = false): IntentPaymentMethod[] {
    if (environment === 'test') return [...INTENT_PAYMENT_METHODS];
    return INTENT_PAYMENT_METHODS.filter(
      (method) => method === 'togo' || (method === 'lahza' && this.of('lahza', 'live') !== null) || (method === 'crypto' && cryptoConfigured),
    );
  }

  /** Of `methods`, those a provider takes in `environment`. */
  methodsIn(environment: Environment, methods: readonly string[]): string[] {
    return methods.filter((method) => this.of(method, environment) !== null);
  }

  /** The environments whose key signed a notification (each key signs its own environment's); none: forged. */
  signersOf(method: ProviderMethod, rawBody: Buffer, signature: string | undefined): Environment[] {
    return (['live', 'test'] as const).filter((environment) => this.of(method, environment)?.isSignedNotification(rawBody, signature) === true);
  }
}
