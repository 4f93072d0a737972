import { DEVELOPMENT_WEBHOOK_SECRETS_KEY, parseSecretsKey } from '@payments/webhooks';
import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { NotDefaultInProduction, OffInProduction, parseFlag, Parses } from './config.validators';
import { ServiceConfig } from './service-config';

/** The same key however it is spelled (base64 or base64url, padded or not); a malformed one is no key. */
function sameSecretsKey(value: unknown, other: string): boolean {
  if (typeof value !== 'string') return false;
  try {
    return parseSecretsKey(value).equals(parseSecretsKey(other));
  } catch {
    // Malformed: @Parses reports it, and it is not the development key.
    return false;
  }
}

/** Settings of the services that handle webhook signing secrets and targets: the gateway and the webhook-dispatcher. */
export class WebhookServiceConfig extends ServiceConfig {
  /**
   * AES-256-GCM key (32 bytes, base64) that encrypts webhook signing secrets at rest and in events; the gateway
   * and the webhook-dispatcher must have the same one. The default is a development key, refused in production.
   */
  @Parses(parseSecretsKey, '32 random bytes in base64 (e.g. `openssl rand -base64 32`)')
  @NotDefaultInProduction(DEVELOPMENT_WEBHOOK_SECRETS_KEY, {
    equals: sameSecretsKey,
    message: '$property must be set to a secret key when NODE_ENV=production (the built-in one is for development only)',
  })
  WEBHOOK_SECRETS_KEY: string = DEVELOPMENT_WEBHOOK_SECRETS_KEY;

  /**
   * Development and tests only (refused in production): accept and deliver to `http://` and loopback webhook URLs,
   * so tests can run a receiver on this machine. Private, link-local and metadata addresses stay refused.
   */
  @Transform(parseFlag)
  @IsBoolean()
  @OffInProduction()
  WEBHOOK_ALLOW_INSECURE_TARGETS: boolean = false;
}
