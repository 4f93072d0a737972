// The webhook settings live with the webhook code they configure; the config lib stays generic.
import { NotDefaultInProduction, OffInProduction, parseFlag, Parses, ServiceConfig } from '@payments/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { parseNameServers, type HostResolverOptions } from './host-resolver';
import { DEVELOPMENT_WEBHOOK_SECRETS_KEY, parseSecretsKey, PUBLISHED_WEBHOOK_SECRETS_KEYS } from './secret-box';

/** One of the keys written in this repository, however it is spelled (base64 or base64url, padded or not). */
function isPublishedSecretsKey(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  let key: Buffer;
  try {
    key = parseSecretsKey(value);
  } catch {
    // Malformed: @Parses reports it, and it is no published key.
    return false;
  }
  return PUBLISHED_WEBHOOK_SECRETS_KEYS.some((published) => key.equals(parseSecretsKey(published)));
}

/** Settings of the services that handle webhook signing secrets and targets: the gateway and the webhook-dispatcher. */
export class WebhookServiceConfig extends ServiceConfig {
  /**
   * AES-256-GCM key (32 bytes, base64) that encrypts webhook signing secrets at rest and in events; the gateway
   * and the webhook-dispatcher must have the same one. The default is a development key; it and every other key
   * written in the repository are refused in production.
   */
  @Parses(parseSecretsKey, '32 random bytes in base64 (e.g. `openssl rand -base64 32`)')
  @NotDefaultInProduction(DEVELOPMENT_WEBHOOK_SECRETS_KEY, {
    equals: isPublishedSecretsKey,
    message: '$property must be set to a secret key when NODE_ENV=production (the built-in one and every key in the repository are public)',
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

  /**
   * Name servers for webhook host names (comma-separated `address` or `address:port`); empty: the system's
   * (/etc/resolv.conf). The hosts file is not read: `localhost` is loopback, every other name is asked of DNS.
   */
  @IsString()
  @Parses(parseNameServers, 'a comma-separated list of name server addresses (address or address:port)')
  WEBHOOK_DNS_SERVERS: string = '';

  /** How long one name server is given to answer before it is asked again. */
  @IsInt()
  @Min(50)
  @Max(30_000)
  WEBHOOK_DNS_TIMEOUT_MS: number = 1500;

  /** How often each name server is asked before a lookup fails. */
  @IsInt()
  @Min(1)
  @Max(10)
  WEBHOOK_DNS_TRIES: number = 2;

  /** Webhook host names of one merchant being looked up at once (per instance); more wait for one to finish. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_DNS_LOOKUPS_PER_MERCHANT: number = 4;
}

/** The HostResolver settings of a webhook service. */
export function webhookDnsOptions(config: WebhookServiceConfig): HostResolverOptions {
  return {
    servers: parseNameServers(config.WEBHOOK_DNS_SERVERS),
    timeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS,
    tries: config.WEBHOOK_DNS_TRIES,
    perOwnerInFlight: config.WEBHOOK_DNS_LOOKUPS_PER_MERCHANT,
  };
}
