import { checkRejectionReason, checkVerificationDetails } from './verification';

describe('verification details', () => {
  const good = { businessName: ' Corner  Shop ', country: 'ps', ownerName: 'Lina Haddad', contact: '+970 59 123 4567' };

  it('are trimmed and normalized', () => {
    expect(checkVerificationDetails(good)).toEqual({
      ok: true,
      details: { businessName: 'Corner Shop', country: 'PS', ownerName: 'Lina Haddad', contact: '+970 59 123 4567' },
    });
    expect(checkVerificationDetails({ ...good, contact: 'owner@corner.example' })).toMatchObject({ ok: true });
  });

  it('name the first field at fault', () => {
    expect(checkVerificationDetails({ ...good, businessName: '  ' })).toMatchObject({ ok: false, field: 'businessName' });
    expect(checkVerificationDetails({ ...good, ownerName: 'x'.repeat(201) })).toMatchObject({ ok: false, field: 'ownerName' });
    expect(checkVerificationDetails({ ...good, ownerName: 42 })).toMatchObject({ ok: false, field: 'ownerName' });
    for (const country of ['XX', 'EU', 'UK', 'PSE', '']) {
      expect(checkVerificationDetails({ ...good, country })).toMatchObject({ ok: false, field: 'country' });
    }
    for (const contact of ['call me', '12345', 'a@b', '+1 234 567 890 123 456']) {
      expect(checkVerificationDetails({ ...good, contact })).toMatchObject({ ok: false, field: 'contact' });
    }
  });

  it('rejection reasons: required, at most 500 characters', () => {
    expect(checkRejectionReason('  Blurry ID  ')).toBe('Blurry ID');
    expect(checkRejectionReason('')).toBeNull();
    expect(checkRejectionReason('   ')).toBeNull();
    expect(checkRejectionReason('x'.repeat(500))).toHaveLength(500);
    expect(checkRejectionReason('x'.repeat(501))).toBeNull();
    expect(checkRejectionReason(undefined)).toBeNull();
  });
});
