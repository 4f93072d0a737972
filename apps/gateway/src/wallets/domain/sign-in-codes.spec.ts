import { CODE_LIFETIME_MS, codeExpiry, codeState, mayIssueCode, newSignInCode, normaliseCode, normaliseEmail } from './sign-in-codes';

describe('wallet sign-in codes', () => {
  it('are six digits, leading zeros kept, and vary', () => {
    const codes = Array.from({ length: 200 }, newSignInCode);
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(190);
  });

  it('read what the customer typed: spaces and dashes dropped, anything else refused', () => {
    expect(normaliseCode(' 012 345 ')).toBe('012345');
    expect(normaliseCode('012-345')).toBe('012345');
    for (const bad of ['12345', '1234567', 'abcdef', '', 123456, undefined, 'x'.repeat(50)]) expect(normaliseCode(bad)).toBeNull();
  });

  it('work within ten minutes, once, until five wrong tries or a newer code', () => {
    const now = new Date('2026-01-01T10:00:00Z');
    const fresh = { expiresAt: codeExpiry(now), failedAttempts: 0, usedAt: null, voidedAt: null };
    expect(codeState(fresh, now)).toBe('usable');
    expect(codeState(fresh, new Date(now.getTime() + CODE_LIFETIME_MS - 1))).toBe('usable');
    expect(codeState(fresh, new Date(now.getTime() + CODE_LIFETIME_MS))).toBe('expired');
    expect(codeState({ ...fresh, failedAttempts: 4 }, now)).toBe('usable');
    expect(codeState({ ...fresh, failedAttempts: 5 }, now)).toBe('dead');
    expect(codeState({ ...fresh, usedAt: now }, now)).toBe('used');
    expect(codeState({ ...fresh, voidedAt: now }, now)).toBe('voided');
  });

  it('go to an address at most once a minute and ten times a day', () => {
    const now = new Date('2026-01-01T10:00:00Z');
    const ago = (ms: number) => new Date(now.getTime() - ms);
    expect(mayIssueCode([], now)).toBe(true);
    expect(mayIssueCode([ago(59_000)], now)).toBe(false);
    expect(mayIssueCode([ago(60_000)], now)).toBe(true);
    const nine = Array.from({ length: 9 }, (_, i) => ago(3_600_000 * (i + 1)));
    expect(mayIssueCode(nine, now)).toBe(true);
    expect(mayIssueCode([...nine, ago(120_000)], now)).toBe(false);
    // Yesterday's no longer count.
    expect(mayIssueCode([...nine, ago(86_400_000)], now)).toBe(true);
  });
});

describe('normaliseEmail', () => {
  it('trims and lower-cases one address', () => {
    expect(normaliseEmail('  Layla@Example.COM ')).toBe('layla@example.com');
  });
  it('refuses anything that is not one address with a domain', () => {
    for (const bad of ['', 'layla', 'layla@localhost', 'a@b.c, d@e.f', 'a b@c.de', 'x\n@y.zz', `${'a'.repeat(250)}@b.cd`, 42, null]) expect(normaliseEmail(bad)).toBeNull();
  });
});
