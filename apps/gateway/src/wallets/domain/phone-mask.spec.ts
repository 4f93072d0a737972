import { maskPhone, normalisePhone } from './phone-mask';

describe('maskPhone', () => {
  it('keeps the country code and first digits and the last four, hiding the middle', () => {
    expect(maskPhone('+970 59 123 4567')).toBe('+97059•••4567');
    expect(maskPhone('+1 (415) 555-0132')).toBe('+1415•••0132');
    expect(maskPhone('0591234567')).toBe('059•••4567');
  });

  it('always hides at least three digits and keeps fewer at the end of shorter numbers', () => {
    for (const phone of ['+97059123456', '0591234567', '12345678', '1234567', '123456']) {
      const masked = maskPhone(phone)!;
      expect((masked.match(/•/g) ?? []).length).toBeGreaterThanOrEqual(3);
      expect(masked.replace(/\D/g, '').length).toBeLessThanOrEqual(phone.replace(/\D/g, '').length - 3);
    }
    expect(maskPhone('12345678')).toBe('12•••678');
    expect(maskPhone('123456')).toBe('1•••56');
  });

  it('shows little of a very short number and nothing of none', () => {
    expect(maskPhone('12345')).toBe('•••45');
    expect(maskPhone(null)).toBeNull();
    expect(maskPhone('   ')).toBeNull();
    expect(maskPhone('--')).toBeNull();
  });
});

describe('normalisePhone', () => {
  it('takes digits with spaces, dashes, brackets and a leading +; empty is no phone', () => {
    expect(normalisePhone(' +970  59-123 4567 ')).toEqual({ ok: true, phone: '+970 59-123 4567' });
    expect(normalisePhone('')).toEqual({ ok: true, phone: null });
    expect(normalisePhone(undefined)).toEqual({ ok: true, phone: null });
  });
  it('refuses letters, too few or too many digits', () => {
    for (const bad of ['call me', '12345', '1'.repeat(21), '+97059+123']) expect(normalisePhone(bad)).toEqual({ ok: false });
  });
});
