import { randomBytes } from 'node:crypto';
import { decryptSecret, DEVELOPMENT_WEBHOOK_SECRETS_KEY, encryptSecret, newWebhookSecret, parseSecretsKey } from './secret-box';

describe('webhook secret encryption', () => {
  const key = randomBytes(32);

  it('round-trips a secret with AES-256-GCM, a fresh IV each time', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const a = encryptSecret(secret, key);
    const b = encryptSecret(secret, key);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(decryptSecret(a, key)).toBe(secret);
    expect(decryptSecret(b, key)).toBe(secret);
  });

  it('refuses another key and altered text', () => {
    const encrypted = encryptSecret('whsec_abc', key);
    expect(() => decryptSecret(encrypted, randomBytes(32))).toThrow(/cannot be decrypted/);
    const parts = encrypted.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] ^= 1;
    expect(() => decryptSecret([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), key)).toThrow();
    expect(() => decryptSecret('whsec_plain', key)).toThrow(/not an encrypted/);
  });

  it('reads the key setting: base64 of 32 bytes', () => {
    expect(parseSecretsKey(DEVELOPMENT_WEBHOOK_SECRETS_KEY)).toHaveLength(32);
    expect(parseSecretsKey(randomBytes(32).toString('base64url'))).toHaveLength(32);
    expect(() => parseSecretsKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => parseSecretsKey('not base64!')).toThrow(/base64/);
  });
});
