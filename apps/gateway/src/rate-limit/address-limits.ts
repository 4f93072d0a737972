import { Logger } from '@nestjs/common';
import { metricsRegistry } from '@payments/platform';
import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * What an address's allowances are for: the merchants' forms (dashboard sign-in, and sign-up, confirmation and reset
 * mails) and the customers' (wallet code sign-in and code mails: a checkout's customers come from mobile networks
 * that put many behind one address, so theirs are separate and larger).
 */
export type AddressLimit = 'sign_in_failures' | 'mails' | 'wallet_sign_in_failures' | 'wallet_codes';

const refusals = new Counter({
  name: 'address_limit_refusals_total',
  help: 'Public form posts refused because their client address was past a limit (sign_in_failures, mails, wallet_sign_in_failures, wallet_codes)',
  labelNames: ['limit'] as const,
  registers: [metricsRegistry],
});

/** What the public forms may cost per client address in one window (the gateway's settings). */
export interface AddressLimitSettings {
  /** Each limit's allowance per window: failed sign-ins (`*_sign_in_failures`), or mails asked for. */
  allowances: Record<AddressLimit, number>;
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
 * send mail (sign-up, confirmation, reset, wallet codes: mail to addresses of somebody else's choosing), each for
 * merchants and customers apart (AddressLimit). While Redis does not answer, each instance counts in memory
 * instead: the limits hold, per instance.
 */
export class AddressLimits {
  private readonly logger = new Logger('AddressLimits');
  private readonly limiters: Record<AddressLimit, RateLimiterAbstract>;

  constructor(redis: Redis, private readonly settings: AddressLimitSettings) {
    const make = (limit: AddressLimit) => limiter(redis, `${settings.namespace}:address:${limit}`, settings.allowances[limit], settings.windowSeconds);
    this.limiters = { sign_in_failures: make('sign_in_failures'), mails: make('mails'), wallet_sign_in_failures: make('wallet_sign_in_failures'), wallet_codes: make('wallet_codes') };
  }

  /**
   * Takes one of the address's allowance for `limit`; refused past it. A sign-in takes its share before its password
   * or code is checked, so guesses sent at once count each, and gives it back when it proved its credentials
   * (giveBack): only failures use a sign-in allowance.
   */
  async take(limit: AddressLimit, address: string): Promise<AddressRefusal | null> {
    const client = clientOf(address);
    try {
      await this.limiters[limit].consume(client, 1);
      return null;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      refusals.inc({ limit });
      if (error.consumedPoints === this.settings.allowances[limit] + 1) this.reached(limit, client, error);
      return refusal(error);
    }
  }

  /** A share taken that was not a failure (the right password or code): back to the address. */
  async giveBack(limit: AddressLimit, address: string): Promise<void> {
    await this.limiters[limit].reward(clientOf(address), 1);
  }

  /** One line per address and window, when it first meets the limit (each refusal after is counted, not logged). */
  private reached(limit: AddressLimit, client: string, state: RateLimiterRes): void {
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
