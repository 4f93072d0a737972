import { Logger } from '@nestjs/common';
import { metricsRegistry } from '@payments/platform';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

type Limit = 'sign_in_failures' | 'mails';

const refusals = new Counter({
  name: 'address_limit_refusals_total',
  help: 'Public form posts refused because their client address was past a limit (sign_in_failures, mails)',
  labelNames: ['limit'] as const,
  registers: [metricsRegistry],
});

/** What the public forms may cost per client address in one window (the gateway's settings). */
export interface AddressLimitSettings {
  /** Failed sign-ins (dashboard password or second factor, wallet code) an address may make per window. */
  signInFailures: number;
  /** Forms that mail an address typed into them (sign-up, confirmation again, password reset, wallet code). */
  mails: number;
  windowSeconds: number;
  /** Prefix of the Redis keys (the deployment's namespace). */
  namespace: string;
}

/** An address past its limit: when it may try again. */
export interface AddressRefusal {
  retryAfterSeconds: number;
}

/**
 * The client an address stands for: an IPv4 address, or an IPv6 address's /64 (one subscriber's network: a client
 * holding a /64 must not get a fresh allowance per address in it). An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * Per-address limits on the forms anyone may post without an account, shared by every gateway instance through
 * Redis: failed sign-ins (credential stuffing spreads its guesses over many accounts, which the per-account
 * lock-out does not see; a refused address is refused before any password or code is checked), and forms that
 * send mail (sign-up, confirmation, reset, wallet codes: mail to addresses of somebody else's choosing). While
 * Redis does not answer, each instance counts in memory instead: the limits hold, per instance.
 */
export class AddressLimits {
  private readonly logger = new Logger('AddressLimits');
  private readonly failures: RateLimiterAbstract;
  private readonly mails: RateLimiterAbstract;

  constructor(redis: Redis, private readonly settings: AddressLimitSettings) {
    this.failures = limiter(redis, `${settings.namespace}:address:sign-in-failures`, settings.signInFailures, settings.windowSeconds);
    this.mails = limiter(redis, `${settings.namespace}:address:mails`, settings.mails, settings.windowSeconds);
  }

  /**
   * Takes a sign-in attempt from the address's failures before its password or code is checked, so guesses sent at
   * once count each; refused past the limit. An attempt that turns out not to be a failure gives it back
   * (signInSucceeded): only failures use the allowance.
   */
  async takeSignIn(address: string): Promise<AddressRefusal | null> {
    return this.take(this.failures, 'sign_in_failures', this.settings.signInFailures, address);
  }

  /** The attempt taken by takeSignIn proved its credentials (or was not a guess): its share back. */
  async signInSucceeded(address: string): Promise<void> {
    await this.failures.reward(clientOf(address), 1);
  }

  /** Takes one mail of the address's allowance; refused past it. */
  async takeMail(address: string): Promise<AddressRefusal | null> {
    return this.take(this.mails, 'mails', this.settings.mails, address);
  }

  private async take(from: RateLimiterAbstract, limit: Limit, allowance: number, address: string): Promise<AddressRefusal | null> {
    const client = clientOf(address);
    try {
      await from.consume(client, 1);
      return null;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      refusals.inc({ limit });
      if (error.consumedPoints === allowance + 1) this.reached(limit, client, error);
      return refusal(error);
    }
  }

  /** One line per address and window, when it first meets the limit (each refusal after is counted, not logged). */
  private reached(limit: Limit, client: string, state: RateLimiterRes): void {
    this.logger.warn({ client, limit, retry_after_s: refusal(state).retryAfterSeconds }, 'address limit reached: its public form posts are refused until the window ends');
  }
}

function limiter(redis: Redis, keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points,
    duration,
    // A Redis that is down answers from memory at once instead of after the client's timeouts.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
}

const refusal = (state: RateLimiterRes): AddressRefusal => ({ retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)) });
