import { csrfToken, csrfTokenValid, dashboardOrigins, newCsrfSecret, sameOrigin } from './csrf';

describe('CSRF tokens', () => {
  it('verify against the secret they were made from, and no other', () => {
    const secret = newCsrfSecret();
    const token = csrfToken(secret);
    expect(csrfTokenValid(secret, token)).toBe(true);
    expect(csrfTokenValid(newCsrfSecret(), token)).toBe(false);
  });

  it('refuse a missing, empty, oversized or non-string token, and a missing secret', () => {
    const secret = newCsrfSecret();
    for (const token of [undefined, '', 'x'.repeat(500), 42, ['a'], csrfToken(secret).slice(0, -1) + '!']) expect(csrfTokenValid(secret, token)).toBe(false);
    expect(csrfTokenValid(undefined, csrfToken(secret))).toBe(false);
  });
});

describe('sameOrigin', () => {
  const own = ['https://pay.example'];
  it('accepts our own Origin, or our own Referer when no Origin is sent', () => {
    expect(sameOrigin({ origin: 'https://pay.example' }, own)).toBe(true);
    expect(sameOrigin({ referer: 'https://pay.example/dashboard/login' }, own)).toBe(true);
  });
  it('refuses another origin, an opaque ("null") origin and a Referer that is not a URL', () => {
    expect(sameOrigin({ origin: 'https://evil.example' }, own)).toBe(false);
    expect(sameOrigin({ origin: 'null' }, own)).toBe(false);
    expect(sameOrigin({ origin: 'https://pay.example.evil.example' }, own)).toBe(false);
    expect(sameOrigin({ referer: 'https://evil.example/x' }, own)).toBe(false);
    expect(sameOrigin({ referer: 'not a url' }, own)).toBe(false);
  });
  it('leaves a request naming no origin to the token', () => {
    expect(sameOrigin({}, own)).toBe(true);
  });
});

describe('dashboardOrigins', () => {
  it('is the public address alone in production', () => {
    expect(dashboardOrigins('https://pay.example/base')).toEqual(['https://pay.example']);
  });
  it('takes every name of this machine for a development address', () => {
    expect(dashboardOrigins('http://localhost:3000')).toEqual(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']);
  });
});
