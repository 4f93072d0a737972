/** NIST SP 800-63B: length matters, composition rules do not; 128 bounds the work one hash may cost. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

export type PasswordProblem = 'too_short' | 'too_long' | 'same_as_email';

/** Why a new password is refused, or null. Length counts characters (code points), not UTF-16 units. */
export function passwordProblem(password: string, email: string): PasswordProblem | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too_short';
  if (length > PASSWORD_MAX_LENGTH) return 'too_long';
  const lower = password.trim().toLowerCase();
  const address = email.trim().toLowerCase();
  // The address, or its local part, is the first thing anyone who knows the account tries.
  if (lower === address || lower === address.split('@')[0]) return 'same_as_email';
  return null;
}
