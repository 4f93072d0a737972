import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// 248 = 4 x 62: bytes at or above it are dropped so every character is equally likely (no modulo bias).
const ACCEPT_BELOW = 248;

/** n characters of base62 from the CSPRNG; 24 characters carry about 143 bits. */
export function randomBase62(n = 24): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`length must be a non-negative integer, got ${n}`);
  let out = '';
  while (out.length < n) {
    // Ask for a little more than needed; about 3% of bytes are rejected.
    const bytes = randomBytes(n - out.length + 8);
    for (const byte of bytes) {
      if (byte >= ACCEPT_BELOW) continue;
      out += BASE62_ALPHABET[byte % 62];
      if (out.length === n) break;
    }
  }
  return out;
}
