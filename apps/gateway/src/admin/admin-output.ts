import type { ApiKeyEntity } from '../merchants/api-key.entity';
import type { MerchantEntity } from '../merchants/merchant.entity';

/** What a command prints: `json` with --json (stable field names), `lines` otherwise. */
export interface CommandOutput {
  json: Record<string, unknown>;
  lines: string[];
}

export function merchantJson(merchant: MerchantEntity): Record<string, unknown> {
  return {
    merchant_id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    verification_status: merchant.verificationStatus,
    enabled_methods: merchant.enabledMethods,
    rate_limit_live_per_sec: merchant.rateLimitLivePerSec,
    rate_limit_test_per_sec: merchant.rateLimitTestPerSec,
    fee_overrides: merchant.feeOverrides,
    verification: {
      business_name: merchant.businessName,
      country: merchant.country,
      owner_name: merchant.ownerName,
      contact: merchant.contact,
      submitted_at: merchant.verificationSubmittedAt?.toISOString() ?? null,
      decided_at: merchant.verificationDecidedAt?.toISOString() ?? null,
      rejection_reason: merchant.rejectionReason,
    },
    created_at: merchant.createdAt.toISOString(),
  };
}

/** A key without its secret (which is never stored). */
export function keyJson(key: ApiKeyEntity): Record<string, unknown> {
  return {
    key_id: key.keyId,
    merchant_id: key.merchantId,
    environment: key.environment,
    name: key.name,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
  };
}

export function limitText(value: number | null): string {
  return value === null ? 'operator default' : `${value}/s`;
}
