import { randomUUID } from 'node:crypto';
import type { Environment } from '@payments/ids';
import { ApiError } from '@payments/platform';
import type { Redis } from 'ioredis';
import { TAKE_TOKENS_FUNCTION, type TokenGrant } from '../rate-limit/token-bucket';

/** Whose key it is: the same Idempotency-Key of another merchant or environment is another record. */
export interface IdempotencyScope {
  merchantId: string;
  environment: Environment;
  key: string;
}

/** A response as it went out: replayed with exactly these bytes. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type IdempotencyStart = { kind: 'execute'; owner: string } | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyStoreOptions {
  /** Redis key prefix (the deployment's namespace). */
  prefix: string;
  /** How long a completed response is kept. */
  ttlSeconds: number;
  /** How long a duplicate waits for the first request before 409 idempotency_request_in_progress. */
  waitMs: number;
  /**
   * An unfinished claim's lease: the request holding it renews it every `renewEveryMs` while it runs, so a claim
   * whose gateway died lapses within this and a retry runs (the owning service's own key check keeps it to one
   * object). Short, so a merchant's retry after our crash is never held for long.
   */
  leaseMs: number;
  renewEveryMs: number;
  /** The longest a request may hold its key (the command deadline and a margin): renewals stop then. */
  maxHoldMs: number;
  /** Encrypts the bodies of responses that carry secrets (`sealed`), so Redis never holds them in the clear. */
  sealer: ResponseSealer;
}

/** Authenticated encryption of a stored body (base64 in, opaque text out, and back). */
export interface ResponseSealer {
  seal(body: string): string;
  open(sealed: string): string;
}

// Claims the key (SET NX semantics on a hash) or answers what is there, in one round trip.
const CLAIM_FUNCTION = `
local function claim(key, fingerprint, owner, lease_ms)
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'state', 'pending', 'fp', fingerprint, 'owner', owner)
    redis.call('PEXPIRE', key, lease_ms)
    return { 'claimed' }
  end
  return redis.call('HMGET', key, 'state', 'fp', 'status', 'headers', 'body', 'sealed')
end
`;

const CLAIM = `${CLAIM_FUNCTION}
return claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
`;

// The request's rate-limit token and its claim in one round trip: no claim when the bucket gave no token.
const TAKE_AND_CLAIM = `${TAKE_TOKENS_FUNCTION}${CLAIM_FUNCTION}
local grant = take_tokens(KEYS[2], tonumber(ARGV[4]), 1)
if grant[1] == 0 then return grant end
local answer = claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
return { grant[1], grant[2], unpack(answer) }
`;

// Only the claim's owner may complete or release it (a lapsed claim may belong to someone else by now).
const COMPLETE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'status', ARGV[2], 'headers', ARGV[3], 'body', ARGV[4], 'sealed', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
`;

// Extends a pending claim's lease while its owner holds it; 0 when it lapsed or was taken over.
const RENEW = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'pending' then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

const RELEASE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/**
 * The rate-limit token a request takes in its claim's round trip: the bucket (in the same Redis), its size, and
 * who decides on what the bucket gave (it throws the 429 when the bucket gave none).
 */
export interface TokensWithClaim {
  bucketKey: string;
  limit: number;
  admit(grant: TokenGrant): void;
}

type ClaimAnswer = Array<string | null>;

type Commands = {
  idempotencyClaim(key: string, fingerprint: string, owner: string, ttlMs: number): Promise<ClaimAnswer>;
  idempotencyTakeAndClaim(key: string, bucketKey: string, fingerprint: string, owner: string, ttlMs: number, limit: number): Promise<[number, string, ...ClaimAnswer]>;
  idempotencyComplete(key: string, owner: string, status: number, headers: string, body: string, ttl: number, sealed: '0' | '1'): Promise<number>;
  idempotencyRelease(key: string, owner: string): Promise<number>;
  idempotencyRenew(key: string, owner: string, leaseMs: number): Promise<number>;
};

/**
 * Idempotency records in Redis. The first request with a key claims it and runs; a duplicate with the same
 * fingerprint waits for it (polling) and replays its response; a different fingerprint is 409 at once. A claim
 * lives only as long as the request holding it: a short lease its gateway renews (DESIGN §3, nothing waits for a
 * dead process).
 */
export class IdempotencyStore {
  private readonly redis: Redis & Commands;
  /** Renewal timers of the claims this process holds, by owner token. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    redis: Redis,
    private readonly options: IdempotencyStoreOptions,
  ) {
    if (!('idempotencyClaim' in redis)) {
      redis.defineCommand('idempotencyClaim', { numberOfKeys: 1, lua: CLAIM });
      redis.defineCommand('idempotencyTakeAndClaim', { numberOfKeys: 2, lua: TAKE_AND_CLAIM });
      redis.defineCommand('idempotencyComplete', { numberOfKeys: 1, lua: COMPLETE });
      redis.defineCommand('idempotencyRelease', { numberOfKeys: 1, lua: RELEASE });
      redis.defineCommand('idempotencyRenew', { numberOfKeys: 1, lua: RENEW });
    }
    this.redis = redis as Redis & Commands;
  }

  /**
   * Claims the key, or waits for the request holding it; throws the 409s. With `tokens`, the first try takes the
   * request's rate-limit token in the same round trip and hands them to `tokens.admit` before anything else.
   */
  async start(scope: IdempotencyScope, fingerprint: string, tokens?: TokensWithClaim): Promise<IdempotencyStart> {
    const owner = randomUUID();
    const key = this.keyOf(scope);
    const deadline = Date.now() + this.options.waitMs;
    let pause = 20;
    let withTokens = tokens;
    for (;;) {
      const [state, storedFingerprint, status, headers, stored, sealed] = withTokens
        ? await this.takeAndClaim(key, fingerprint, owner, withTokens)
        : await this.redis.idempotencyClaim(key, fingerprint, owner, this.options.leaseMs);
      withTokens = undefined;
      if (state === 'claimed') {
        this.keepAlive(key, owner);
        return { kind: 'execute', owner };
      }
      if (storedFingerprint !== fingerprint) {
        throw new ApiError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request.',
        );
      }
      if (state === 'done') {
        const body = sealed === '1' && stored ? this.options.sealer.open(stored) : stored;
        return {
          kind: 'replay',
          response: { status: Number(status), headers: JSON.parse(headers ?? '{}'), body: Buffer.from(body ?? '', 'base64') },
        };
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ApiError(
          'idempotency_request_in_progress',
          'A request with this Idempotency-Key is still being processed. Retry shortly to get its result.',
          undefined,
          { 'Retry-After': '1' },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, 200);
    }
  }

  private async takeAndClaim(key: string, fingerprint: string, owner: string, tokens: TokensWithClaim): Promise<ClaimAnswer> {
    const [taken, left, ...answer] = await this.redis.idempotencyTakeAndClaim(key, tokens.bucketKey, fingerprint, owner, this.options.leaseMs, tokens.limit);
    tokens.admit({ taken, left: Number(left) });
    return answer;
  }

  /**
   * Keeps the response for replay, its body encrypted when `sealed` (it shows a secret); false when the claim
   * had lapsed and someone else holds the key now.
   */
  async complete(scope: IdempotencyScope, owner: string, response: StoredResponse, sealed = false): Promise<boolean> {
    this.stopRenewing(owner);
    const body = response.body.toString('base64');
    const done = await this.redis.idempotencyComplete(
      this.keyOf(scope),
      owner,
      response.status,
      JSON.stringify(response.headers),
      sealed ? this.options.sealer.seal(body) : body,
      this.options.ttlSeconds,
      sealed ? '1' : '0',
    );
    return done === 1;
  }

  /** Forgets the claim: the same key may be used again (after a 400, or when the request failed with a 5xx). */
  async release(scope: IdempotencyScope, owner: string): Promise<void> {
    this.stopRenewing(owner);
    await this.redis.idempotencyRelease(this.keyOf(scope), owner);
  }

  /** Claims this process still holds (requests in flight). */
  get held(): number {
    return this.renewals.size;
  }

  /**
   * Renews the claim's lease while its request runs, up to maxHoldMs. A failed renewal is tried again at the next
   * tick (the lease has room for two misses); a claim found lapsed or taken over is no longer ours to renew.
   */
  private keepAlive(key: string, owner: string): void {
    const until = Date.now() + this.options.maxHoldMs;
    const timer = setInterval(() => {
      if (Date.now() >= until) return this.stopRenewing(owner);
      this.redis.idempotencyRenew(key, owner, this.options.leaseMs).then(
        (renewed) => renewed === 1 || this.stopRenewing(owner),
        () => undefined, // Redis unreachable for a moment: the next tick tries again, the lease lapses if it stays away
      );
    }, this.options.renewEveryMs);
    timer.unref();
    this.renewals.set(owner, timer);
  }

  private stopRenewing(owner: string): void {
    const timer = this.renewals.get(owner);
    if (timer === undefined) return;
    clearInterval(timer);
    this.renewals.delete(owner);
  }

  private keyOf(scope: IdempotencyScope): string {
    return `${this.options.prefix}:idempotency:${scope.merchantId}:${scope.environment}:${scope.key}`;
  }
}
