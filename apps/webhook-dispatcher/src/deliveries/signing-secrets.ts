import { decryptSecret } from '@payments/webhooks';
import type { EndpointRow } from '../shared/endpoint-row';

/**
 * The secrets that sign an attempt now: the current one, and after a roll the previous one until its expiry
 * (DESIGN §5: for 24 h both sign, two `v1=` values). Decrypted per attempt, never stored in clear.
 */
export function signingSecrets(
  endpoint: Pick<EndpointRow, 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'>,
  now: Date,
  key: Buffer,
): string[] {
  const secrets = [decryptSecret(endpoint.secret_encrypted, key)];
  const expiresAt = endpoint.previous_secret_expires_at;
  if (endpoint.previous_secret_encrypted !== null && expiresAt !== null && new Date(expiresAt).getTime() > now.getTime()) {
    secrets.push(decryptSecret(endpoint.previous_secret_encrypted, key));
  }
  return secrets;
}
