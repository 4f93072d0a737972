import { passwordProblem } from './password-policy';

describe('passwordProblem', () => {
  const email = 'Owner@Example.com';

  it('asks for length only: 10 to 128 characters, any composition', () => {
    expect(passwordProblem('a'.repeat(9), email)).toBe('too_short');
    expect(passwordProblem('a'.repeat(10), email)).toBeNull();
    expect(passwordProblem('correct horse battery', email)).toBeNull();
    expect(passwordProblem('a'.repeat(128), email)).toBeNull();
    expect(passwordProblem('a'.repeat(129), email)).toBe('too_long');
  });

  it('counts characters, not UTF-16 units', () => {
    expect(passwordProblem('🔑'.repeat(9), email)).toBe('too_short');
    expect(passwordProblem('كلمة مرور طويلة', email)).toBeNull();
  });

  it('refuses the e-mail address, or its local part, whatever the case', () => {
    expect(passwordProblem('owner@example.com', email)).toBe('same_as_email');
    expect(passwordProblem('OWNER@EXAMPLE.COM', email)).toBe('same_as_email');
    const long = 'verylongname@example.com';
    expect(passwordProblem('VeryLongName', long)).toBe('same_as_email');
  });
});
