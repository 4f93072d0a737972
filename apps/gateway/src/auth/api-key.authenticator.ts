import { Logger } from '@nestjs/common';
import { parseApiKey, secretMatches } from '@payments/ids';
import { DEFAULT_FEE_SCHEDULE, merchantFeeSchedule, type FeeSchedule } from '@payments/money';
import { ApiError } from '@payments/platform';
import { apiKeyUsable } from '../merchants/api-key-lifetime';
import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantEntity } from '../merchants/merchant.entity';
import type { AuthContext } from './auth-context';
import type { ApiKeyDirectory } from './api-key.directory';
import type { KeyUsageTracker } from './key-usage.tracker';
import { LookupLimiter } from './lookup-limiter';

const BEARER = /^Bearer +(\S+) *$/i;
/** Uncached key lookups one client may cause per second (twice that in a burst), per gateway instance. */
const LOOKUPS_PER_CLIENT_PER_SEC = 20;

/** Who holds a key whose record was found and whose secret matched. */
export interface KeyHolder {
  context: AuthContext;
  key: ApiKeyEntity;
}

/**
 * Bearer API key -> AuthContext. Missing, malformed, unknown, wrong-secret and revoked keys are all 401
 * invalid_api_key; only the holder of the right secret learns that a key is revoked.
 */
export class ApiKeyAuthenticator {
  private readonly logger = new Logger('ApiKeyAuthenticator');

  constructor(
    private readonly directory: ApiKeyDirectory,
    private readonly usage: KeyUsageTracker,
    /** The operator's standard fee schedule, under each merchant's own rates. */
    private readonly standardFees: FeeSchedule = DEFAULT_FEE_SCHEDULE,
    private readonly lookups: LookupLimiter = new LookupLimiter(LOOKUPS_PER_CLIENT_PER_SEC),
  ) {}

  /** `client` (the caller's address) bounds how many uncached key ids it can make the gateway look up. */
  async authenticate(authorization: string | string[] | undefined, client = ''): Promise<KeyHolder> {
    const invalidKey = (message: string) => new ApiError('invalid_api_key', message, undefined, this.lookupHeaders(client));
    if (authorization === undefined || authorization === '') {
      throw invalidKey('No API key provided. Send it as "Authorization: Bearer <API key>".');
    }
    const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
    if (!match) throw invalidKey('Malformed Authorization header. Send "Authorization: Bearer <API key>".');
    const parsed = parseApiKey(match[1]);
    if (!parsed) throw invalidKey('Invalid API key: it should look like pay_test_<id>.<secret> or pay_live_<id>.<secret>.');

    const key = await this.lookup(parsed.keyId, client);
    // One answer for "no such key", "other environment" and "wrong secret": nothing to learn by guessing.
    if (!key || !key.merchant || key.environment !== parsed.env || !secretMatches(parsed.secret, key.secretHash)) {
      throw invalidKey('Invalid API key provided.');
    }
    if (key.revokedAt) throw invalidKey('This API key has been revoked. Create a new one on the developer page.');
    // A rolled key past its overlap: refused like a revoked one. Compared per request, so the cached record (at most
    // 1 s old) cannot extend it; only an expiry set within the last second may reach an instance that late.
    if (!apiKeyUsable(key, new Date())) throw invalidKey('This API key has expired: it was rolled. Use the key that replaced it.');
    this.usage.used(key.keyId, key.lastUsedAt);
    return { key, context: contextOf(key, key.merchant, this.standardFees) };
  }

  private async lookup(keyId: string, client: string): Promise<ApiKeyEntity | null> {
    let found: ApiKeyEntity | null | 'limited';
    try {
      found = await this.directory.find(keyId, { take: () => this.lookups.take(client), refund: () => this.lookups.refund(client) });
    } catch (error) {
      this.logger.error({ err: error }, 'API key lookup failed');
      throw new ApiError('service_unavailable', 'The service is temporarily unavailable. Retry later.', undefined, {
        'Retry-After': '1',
      });
    }
    if (found === 'limited') {
      throw new ApiError('rate_limited', 'Too many requests with unknown API keys. Retry later.', undefined, {
        ...this.lookupHeaders(client),
        // Refused for want of a lookup: none left at that moment, whatever has trickled back since.
        'RateLimit-Remaining': '0',
        'Retry-After': '1',
      });
    }
    return found;
  }

  /**
   * The RateLimit-* headers of an answer with no key to show a bucket for: the limit that applies to the caller
   * then, its uncached key lookups (DESIGN §5 wants the headers on every response).
   */
  private lookupHeaders(client: string): Record<string, string> {
    const state = this.lookups.state(client);
    return { 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) };
  }
}

/** Live keys need an identity-verified account; test keys work before (DESIGN §5 Environments). */
export function assertEnvironmentAllowed(context: AuthContext): void {
  if (context.environment === 'live' && context.merchant.verificationStatus !== 'verified') {
    throw new ApiError(
      'account_not_verified',
      'This account is not verified yet: live keys work once identity verification is complete. Test keys work now.',
    );
  }
}

function contextOf(key: ApiKeyEntity, merchant: MerchantEntity, standardFees: FeeSchedule): AuthContext {
  return {
    merchantId: merchant.id,
    environment: key.environment,
    keyId: key.keyId,
    merchant: {
      id: merchant.id,
      name: merchant.name,
      verificationStatus: merchant.verificationStatus,
      enabledMethods: merchant.enabledMethods,
      rateLimits: { live: merchant.rateLimitLivePerSec, test: merchant.rateLimitTestPerSec },
      feeSchedule: merchantFeeSchedule(merchant.feeOverrides ?? {}, standardFees),
    },
  };
}
