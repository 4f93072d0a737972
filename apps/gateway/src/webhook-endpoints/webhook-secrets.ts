import { decryptSecret, encryptSecret, parseSecretsKey } from '@payments/webhooks';

/** Webhook signing secrets at rest and in events: encrypted with WEBHOOK_SECRETS_KEY (shared with the dispatcher). */
export class WebhookSecrets {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = parseSecretsKey(keyBase64);
  }

  encrypt(secret: string): string {
    return encryptSecret(secret, this.key);
  }

  decrypt(encrypted: string): string {
    return decryptSecret(encrypted, this.key);
  }
}
