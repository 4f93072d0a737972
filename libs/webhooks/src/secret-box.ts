import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { randomBase62 } from '@payments/ids';

/**
 * DEVELOPMENT ONLY: the default WEBHOOK_SECRETS_KEY of the gateway and the dispatcher, so a fresh checkout runs
 * without setup and the two read each other's secrets. It is public (it is in the source), so both services
 * refuse to start with it when NODE_ENV=production.
 */
export const DEVELOPMENT_WEBHOOK_SECRETS_KEY = Buffer.from('DEVELOPMENT-ONLY-webhook-key-32!', 'utf8').toString('base64');

/**
 * Every WEBHOOK_SECRETS_KEY written in this repository: the built-in one, and the development key of
 * docker-compose.yml and the k8s dev overlay. All public, so all refused when NODE_ENV=production (a test scans
 * the repository's deployment files and fails on a key missing here).
 */
export const PUBLISHED_WEBHOOK_SECRETS_KEYS: readonly string[] = [
  DEVELOPMENT_WEBHOOK_SECRETS_KEY,
  'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXRzLWtleS0wMDE=',
];

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new endpoint signing secret: `whsec_` + 32 base62 characters (about 190 bits). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBase62(32)}`;
}

/** The AES-256 key from its setting: base64 (or base64url) of exactly 32 bytes; throws otherwise. */
export function parseSecretsKey(base64: string): Buffer {
  const text = base64.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new Error('WEBHOOK_SECRETS_KEY must be base64');
  const key = Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`WEBHOOK_SECRETS_KEY must be ${KEY_BYTES} bytes, got ${key.length}`);
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, each base64url: AES-256-GCM with a fresh 96-bit IV per secret. */
export function encryptSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** The plaintext back; throws when the text was not made with this key or was altered (GCM authenticates it). */
export function decryptSecret(encrypted: string, key: Buffer): string {
  const [version, iv, tag, ciphertext, ...extra] = encrypted.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || extra.length > 0) {
    throw new Error('not an encrypted webhook secret (expected v1.<iv>.<tag>.<ciphertext>)');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('malformed encrypted webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tagBytes);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new Error(`webhook secret cannot be decrypted with this key: ${(error as Error).message}`);
  }
}
