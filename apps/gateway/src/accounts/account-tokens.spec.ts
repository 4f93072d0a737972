import { hashToken, newToken, TOKEN_LIFETIME_MS, tokenExpiry, tokenState } from './account-tokens';

describe('account tokens', () => {
  const now = new Date('2026-11-27T10:00:00Z');

  it('are 256 random bits; only a SHA-256 is stored', () => {
    const token = newToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(token);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
  });

  it('expire after their purpose\'s lifetime: a reset in an hour, an invitation in a week', () => {
    expect(TOKEN_LIFETIME_MS.password_reset).toBe(3600_000);
    expect(TOKEN_LIFETIME_MS.invitation).toBe(7 * 24 * 3600_000);
    const expiresAt = tokenExpiry('password_reset', now);
    expect(tokenState({ usedAt: null, expiresAt }, new Date(expiresAt.getTime() - 1))).toBe('usable');
    expect(tokenState({ usedAt: null, expiresAt }, expiresAt)).toBe('expired');
  });

  it('once used stay used, expired or not', () => {
    const expiresAt = tokenExpiry('confirm_email', now);
    expect(tokenState({ usedAt: now, expiresAt }, now)).toBe('used');
    expect(tokenState({ usedAt: now, expiresAt }, new Date(expiresAt.getTime() + 1))).toBe('used');
  });
});
