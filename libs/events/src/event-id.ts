import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 24;
// 248 = 4 * 62: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 248;

export const EVENT_ID_PATTERN = /^evt_[0-9A-Za-z]{24}$/;

/** `evt_` + 24 base62 characters (~143 bits) from the system CSPRNG. */
export function newEventId(): string {
  let out = 'evt_';
  while (out.length < 4 + ID_LENGTH) {
    for (const byte of randomBytes(32)) {
      if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
      if (out.length === 4 + ID_LENGTH) break;
    }
  }
  return out;
}
