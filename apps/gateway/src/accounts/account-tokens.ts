import { createHash, randomBytes } from 'node:crypto';

/** What an e-mailed link is for; each purpose has its own lifetime. */
export const TOKEN_PURPOSES = ['confirm_email', 'password_reset', 'unlock', 'invitation'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

const HOUR_MS = 3600_000;

/** A reset link is the most dangerous to leak, so it lives shortest; an invitation waits for a colleague. */
export const TOKEN_LIFETIME_MS: Record<TokenPurpose, number> = {
  confirm_email: 48 * HOUR_MS,
  password_reset: 1 * HOUR_MS,
  unlock: 24 * HOUR_MS,
  invitation: 7 * 24 * HOUR_MS,
};

/** A new link token: 256 random bits, base64url (43 characters). Only its hash is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Lowercase hex SHA-256: the token is random, so a fast hash is enough (nothing to guess offline). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export type TokenState = 'usable' | 'used' | 'expired';

/** Whether a stored token can still be used at `now`; one already used stays `used` after it expires. */
export function tokenState(token: { usedAt: Date | null; expiresAt: Date }, now: Date): TokenState {
  if (token.usedAt) return 'used';
  return token.expiresAt.getTime() > now.getTime() ? 'usable' : 'expired';
}

export function tokenExpiry(purpose: TokenPurpose, now: Date): Date {
  return new Date(now.getTime() + TOKEN_LIFETIME_MS[purpose]);
}
