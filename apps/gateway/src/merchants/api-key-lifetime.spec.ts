import { apiKeyStatus, apiKeyUsable, isKeyRollOverlap, KEY_ROLL_OVERLAPS, rolledKeyExpiry } from './api-key-lifetime';

describe('API key lifetime', () => {
  const now = new Date('2025-06-01T12:00:00.000Z');

  it('turns each overlap choice into the old key expiry', () => {
    expect(KEY_ROLL_OVERLAPS.map((o) => rolledKeyExpiry(o, now).toISOString())).toEqual([
      '2025-06-01T12:00:00.000Z',
      '2025-06-01T13:00:00.000Z',
      '2025-06-02T12:00:00.000Z',
      '2025-06-08T12:00:00.000Z',
    ]);
  });

  it('keeps an earlier expiry when a key is rolled again, and takes a sooner one', () => {
    const soon = new Date('2025-06-01T12:30:00.000Z');
    expect(rolledKeyExpiry('24h', now, soon)).toEqual(soon);
    expect(rolledKeyExpiry('now', now, soon)).toEqual(now);
  });

  it('accepts only the offered choices', () => {
    expect(['now', '1h', '24h', '7d'].every(isKeyRollOverlap)).toBe(true);
    for (const bad of ['', '2h', '7D', 0, null, undefined, ['1h']]) expect(isKeyRollOverlap(bad)).toBe(false);
  });

  it('refuses a key from the moment it expires, and a revoked one, alike', () => {
    const expiresAt = new Date(now.getTime() + 1000);
    expect(apiKeyStatus({ revokedAt: null, expiresAt: null }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt }, now)).toBe('expiring');
    expect(apiKeyUsable({ revokedAt: null, expiresAt }, new Date(expiresAt.getTime() - 1))).toBe(true);
    expect(apiKeyStatus({ revokedAt: null, expiresAt }, expiresAt)).toBe('expired');
    expect(apiKeyUsable({ revokedAt: null, expiresAt }, expiresAt)).toBe(false);
    expect(apiKeyStatus({ revokedAt: now, expiresAt }, now)).toBe('revoked');
    expect(apiKeyUsable({ revokedAt: now, expiresAt: null }, now)).toBe(false);
  });
});
