import { decryptSecret, encryptSecret } from '@payments/webhooks';
import { hkdfSync } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

const PERIOD_SECONDS = 30;
/** One step either side: a phone clock a little off, or a code typed just as it changed. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;

/** A 6-digit code (spaces allowed, as apps show them), or null. */
export function totpCodeOf(typed: string): string | null {
  const code = typed.replace(/\s/g, '');
  return /^\d{6}$/.test(code) ? code : null;
}

/**
 * TOTP secrets (RFC 6238, SHA-1, 6 digits, 30 s): stored encrypted (AES-256-GCM) under a key of their own derived
 * from WEBHOOK_SECRETS_KEY, so a database dump alone does not give a second factor.
 */
export class TotpSecrets {
  private readonly key: Buffer;

  constructor(
    secretsKey: Buffer,
    private readonly issuer: string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'totp-secrets', 32));
  }

  create(label: string): { secret: string; uri: string; encrypted: string } {
    const secret = generateSecret();
    return { secret, uri: generateURI({ issuer: this.issuer, label, secret }), encrypted: encryptSecret(secret, this.key) };
  }

  /**
   * The time step of a valid code, or null. A code of a step at or before `afterStep` (the last one used) is
   * refused: a code seen over someone's shoulder cannot be used again.
   */
  async verify(encrypted: string, code: string, now: Date, afterStep: number | null): Promise<number | null> {
    const secret = decryptSecret(encrypted, this.key);
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(now.getTime() / 1000),
      period: PERIOD_SECONDS,
      epochTolerance: TOLERANCE_SECONDS,
      ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }
}
