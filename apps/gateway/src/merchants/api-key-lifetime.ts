/** How long a rolled key keeps working next to its successor: the choices a merchant has, in order. */
export const KEY_ROLL_OVERLAPS = ['now', '1h', '24h', '7d'] as const;
export type KeyRollOverlap = (typeof KEY_ROLL_OVERLAPS)[number];

const OVERLAP_MS: Record<KeyRollOverlap, number> = {
  now: 0,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

export function isKeyRollOverlap(value: unknown): value is KeyRollOverlap {
  return typeof value === 'string' && (KEY_ROLL_OVERLAPS as readonly string[]).includes(value);
}

/**
 * When the rolled key stops working. An earlier expiry (a key rolled twice) is kept: a roll never lengthens the
 * life of a key the merchant already chose to end.
 */
export function rolledKeyExpiry(overlap: KeyRollOverlap, now: Date, currentExpiry: Date | null = null): Date {
  const expiry = new Date(now.getTime() + OVERLAP_MS[overlap]);
  return currentExpiry !== null && currentExpiry < expiry ? currentExpiry : expiry;
}

export type ApiKeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

/** A key's state at `now`: revoked and expired keys are refused alike; an expiring one still works. */
export function apiKeyStatus(key: { revokedAt: Date | null; expiresAt: Date | null }, now: Date = new Date()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt === null) return 'active';
  return key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'expiring';
}

/** Whether the API accepts the key at `now` (its secret already matched). */
export function apiKeyUsable(key: { revokedAt: Date | null; expiresAt: Date | null }, now: Date = new Date()): boolean {
  const status = apiKeyStatus(key, now);
  return status === 'active' || status === 'expiring';
}
