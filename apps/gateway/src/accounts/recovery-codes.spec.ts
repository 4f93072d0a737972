import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';

describe('recovery codes', () => {
  it('are ten distinct XXXX-XXXX-XXXX codes without look-alike characters', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
  });

  it('are read without case, spaces or dashes, and anything else is not one', () => {
    const [code] = newRecoveryCodes(1) as [string];
    const typed = ` ${code.toLowerCase().replace(/-/g, ' ')} `;
    expect(normalizeRecoveryCode(typed)).toBe(code.replace(/-/g, ''));
    expect(hashRecoveryCode(normalizeRecoveryCode(typed)!)).toBe(hashRecoveryCode(normalizeRecoveryCode(code)!));
    expect(normalizeRecoveryCode('123456')).toBeNull();
    expect(normalizeRecoveryCode('AAAA-AAAA-AAA0')).toBeNull();
  });
});
