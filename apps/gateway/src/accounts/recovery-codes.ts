import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
// No 0/O, 1/I/L: read off paper and typed by hand.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const GROUPS = 3;
const GROUP_LENGTH = 4;

/** `XXXX-XXXX-XXXX`: 12 characters of a 31-letter alphabet, about 59 random bits each. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length: GROUPS }, () => Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')).join('-'),
  );
}

/** The code as typed, without case, spaces or dashes; null when it cannot be a recovery code. */
export function normalizeRecoveryCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return code.length === GROUPS * GROUP_LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : null;
}

/** SHA-256 of the normalized code: the codes are random, so no slow hash is needed. */
export function hashRecoveryCode(normalized: string): string {
  return createHash('sha256').update(normalized, 'utf8').digest('hex');
}
