import { COUNTRY_CODES } from '../../accounts/countries';
import type { Role, SignedInRequest } from '../session/dashboard-auth';
import { countriesIn, verificationPage } from './verification-pages';

function pageOf(role: Role, lang: 'en' | 'ar' = 'en'): SignedInRequest {
  return {
    lang,
    nonce: 'n0nce',
    csrf: 'tok',
    path: '/dashboard/test/verification',
    environment: 'test',
    user: { id: 'u', email: 'a@b.example', role, merchantId: 'acct_1', sessionEpoch: 0, merchant: { id: 'acct_1', name: 'Shop', verificationStatus: 'unverified', rejectionReason: null } },
  } as unknown as SignedInRequest;
}

const blank = { businessName: null, country: null, ownerName: null, contact: null, verificationSubmittedAt: null, verificationDecidedAt: null, rejectionReason: null };
const sent = { businessName: 'Corner Shop', country: 'PS', ownerName: 'Lina Haddad', contact: '+970 59 123 4567', verificationSubmittedAt: new Date('2025-01-01T00:00:00Z'), verificationDecidedAt: null };

describe('verification page', () => {
  it('offers every ISO country code, named in the language of the page', () => {
    expect(countriesIn('en').map((c) => c.code).sort()).toEqual([...COUNTRY_CODES].sort());
    expect(countriesIn('en').find((c) => c.code === 'JO')!.name).toBe('Jordan');
    expect(countriesIn('ar').find((c) => c.code === 'JO')!.name).not.toBe('Jordan');
  });

  it('gives an owner the form while unverified or rejected, and no one a form while pending or verified', () => {
    expect(verificationPage(pageOf('owner'), { ...blank, verificationStatus: 'unverified' }).value).toContain('data-form="verification"');
    const rejected = verificationPage(pageOf('owner'), { ...sent, verificationStatus: 'rejected', rejectionReason: 'No <such> registry entry' }).value;
    expect(rejected).toContain('data-form="verification"');
    expect(rejected).toContain('No &lt;such&gt; registry entry');
    // The details sent before, to correct.
    expect(rejected).toContain('value="Lina Haddad"');
    expect(rejected).toMatch(/<option value="PS" selected>/);
    for (const status of ['pending', 'verified'] as const) {
      const out = verificationPage(pageOf('owner'), { ...sent, verificationStatus: status, rejectionReason: null }).value;
      expect(out).not.toContain('<form');
      expect(out).toContain(`data-verification-status="${status}"`);
      expect(out).toContain('Corner Shop');
    }
  });

  it('shows the status only to developers and viewers', () => {
    for (const role of ['developer', 'viewer'] as const) {
      const out = verificationPage(pageOf(role), { ...blank, verificationStatus: 'unverified' }).value;
      expect(out).not.toContain('<form');
      expect(out).toContain('data-view-only');
    }
  });

  it('marks the refused field next to its input and keeps what was typed', () => {
    const out = verificationPage(pageOf('owner', 'ar'), { ...blank, verificationStatus: 'unverified' }, {
      values: { businessName: 'Shop', country: 'jo', ownerName: 'Lina', contact: 'call me' },
      fieldError: { field: 'contact', message: 'bad contact' },
    }).value;
    expect(out).toContain('aria-describedby="contact-hint contact-error" aria-invalid="true"');
    expect(out).toContain('data-field-error="contact"');
    expect(out).toContain('value="call me"');
    expect(out).toMatch(/<option value="JO" selected>/);
    expect(out.match(/aria-invalid/g)).toHaveLength(1);
  });
});
