import type { SignedInRequest } from '../session/dashboard-auth';
import { recoveryCodesPage, securityPage, setupPage } from './security-pages';

const page = {
  lang: 'en',
  nonce: 'n0nce',
  csrf: 'tok',
  path: '/dashboard/live/security',
  environment: 'live',
  user: { id: 'u', email: 'a@b.example', role: 'viewer', merchantId: 'acct_1', sessionEpoch: 0, merchant: { id: 'acct_1', name: 'Shop', verificationStatus: 'verified', rejectionReason: null } },
} as unknown as SignedInRequest;

describe('security page', () => {
  it('offers set-up while off, turning off with the password while on, and log out everywhere always (any role)', () => {
    const off = securityPage(page, { totpEnabled: false, recoveryCodesLeft: 0 }).value;
    expect(off).toContain('action="/dashboard/live/security/totp/start"');
    expect(off).not.toContain('totp/disable');
    const on = securityPage(page, { totpEnabled: true, recoveryCodesLeft: 7 }).value;
    expect(on).toContain('action="/dashboard/live/security/totp/disable"');
    expect(on).toContain('type="password"');
    expect(on).toContain('<dd data-recovery-left>7</dd>');
    for (const out of [off, on]) {
      expect(out).toContain('action="/dashboard/logout-everywhere"');
      expect(out.match(/<form /g)!.length).toBe(out.match(/name="_csrf" value="tok"/g)!.length);
    }
  });

  it('shows the key and its link at the start only; after a wrong code, the form and a way to start over', () => {
    const uri = 'otpauth://totp/Payments%20dashboard:a%40b.example?secret=ABC&issuer=Payments%20dashboard';
    const first = setupPage(page, { secret: 'ABCDEF234567', uri }).value;
    expect(first).toContain('ABCDEF234567');
    expect(first).toContain(`href="${uri.replace(/&/g, '&amp;')}"`);
    const again = setupPage(page, null, 'wrong code').value;
    expect(again).not.toContain('data-secret');
    expect(again).toContain('role="alert"');
    expect(again).toContain('totp/enable');
    expect(again).toContain('totp/start');
  });

  it('lists the recovery codes once, escaped', () => {
    const out = recoveryCodesPage(page, ['AAAA-BBBB-CCCC', '<x>']).value;
    expect(out.match(/<li>/g)).toHaveLength(2);
    expect(out).toContain('&lt;x&gt;');
  });
});
