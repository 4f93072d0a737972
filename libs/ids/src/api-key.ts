// API keys: `pay_(live|test)_<key id>.<secret>`. The key id finds the stored record; only a hash of the secret is
// stored. The secret is random with >= 256 bits, so one unsalted SHA-256 is enough (no password stretching needed).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Environment } from './environment';
import { randomBase62 } from './random-base62';

export const API_KEY_ID_LENGTH = 16;
/** 43 base62 characters = 256 bits (32 characters would be only 190.5 bits). */
export const API_KEY_SECRET_LENGTH = 43;

// Parsing accepts a range of lengths so keys issued under other length settings still resolve to their record.
const API_KEY = /^pay_(live|test)_([A-Za-z0-9]{8,64})\.([A-Za-z0-9]{32,128})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface GeneratedApiKey {
  readonly keyId: string;
  readonly secret: string;
  /** The whole key, shown to the merchant once. */
  readonly token: string;
}

export interface ParsedApiKey {
  readonly env: Environment;
  readonly keyId: string;
  readonly secret: string;
}

export function generateApiKey(env: Environment): GeneratedApiKey {
  const keyId = randomBase62(API_KEY_ID_LENGTH);
  const secret = randomBase62(API_KEY_SECRET_LENGTH);
  return { keyId, secret, token: `pay_${env}_${keyId}.${secret}` };
}

export function parseApiKey(token: unknown): ParsedApiKey | null {
  if (typeof token !== 'string' || token.length > 256) return null;
  const match = API_KEY.exec(token);
  if (!match) return null;
  return { env: match[1] as Environment, keyId: match[2] as string, secret: match[3] as string };
}

/** SHA-256 of the secret, lowercase hex: what is stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares in constant time; a malformed stored hash never matches. */
export function secretMatches(secret: string, storedHash: string): boolean {
  if (!SHA256_HEX.test(storedHash)) return false;
  const actual = createHash('sha256').update(secret, 'utf8').digest();
  return timingSafeEqual(actual, Buffer.from(storedHash, 'hex'));
}
