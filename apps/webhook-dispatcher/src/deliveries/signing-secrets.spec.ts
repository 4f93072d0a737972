import { randomBytes } from 'node:crypto';
import { encryptSecret } from '@payments/webhooks';
import { signingSecrets } from './signing-secrets';

describe('signingSecrets', () => {
  const key = randomBytes(32);
  const now = new Date('2025-01-01T12:00:00Z');
  const endpoint = (previousExpiresAt: string | null) => ({
    secret_encrypted: encryptSecret('whsec_new', key),
    previous_secret_encrypted: previousExpiresAt === null ? null : encryptSecret('whsec_old', key),
    previous_secret_expires_at: previousExpiresAt === null ? null : new Date(previousExpiresAt),
  });

  it('signs with the current secret only when none was rolled', () => {
    expect(signingSecrets(endpoint(null), now, key)).toEqual(['whsec_new']);
  });

  it('signs with both for as long as the previous secret has not expired (24 h after a roll)', () => {
    expect(signingSecrets(endpoint('2025-01-02T11:59:59Z'), now, key)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint('2025-01-01T12:00:00Z'), now, key)).toEqual(['whsec_new']);
  });

  it('fails loudly when the key is not the one the secrets were encrypted with', () => {
    expect(() => signingSecrets(endpoint(null), now, randomBytes(32))).toThrow(/cannot be decrypted/);
  });
});
