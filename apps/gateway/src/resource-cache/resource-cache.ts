import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';

/** One cached payment intent or invoice, as its owner sees it (a key of the other environment must not). */
export interface CachedResourceKey {
  merchantId: string;
  environment: string;
  id: string;
}

/** What a read found: the resource if cached, and the generation to fill under if not. */
export type CacheLookup<T> = { hit: true; resource: T } | { hit: false; generation: string };

const logger = new Logger('ResourceCache');

// One hash per resource id: `b` the resource JSON, `o` its owner (merchant:environment), `g` a generation counter
// that every change bumps. Fill writes only if the generation is still the one read before the resource was
// fetched, so a fetch that raced a change (and may hold the state before it) never lands after the change's
// invalidation. Keyed by id alone (ids are unique), so an event that names only its id can still drop it; the
// owner is checked on every read.
const FILL = `
local g = redis.call('HGET', KEYS[1], 'g')
if (g or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'b', ARGV[2], 'o', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;

const INVALIDATE = `
for i, key in ipairs(KEYS) do
  redis.call('HINCRBY', key, 'g', 1)
  redis.call('HDEL', key, 'b')
  redis.call('EXPIRE', key, ARGV[1])
end
return #KEYS`;

/**
 * The gateway's read model of sessions resources (payment intents and invoices) in Redis: GETs are answered from
 * here, and only a miss asks the sessions service. Kept correct by invalidation, not expiry: every change the
 * gateway makes invalidates its resource once sessions has answered, and the gateway also invalidates on every
 * sessions event (changes made inside sessions, e.g. by its expiry job). Reads apply the read time (a live
 * session past expires_at reads as expired), like sessions' own reads. Redis trouble degrades to misses.
 */
interface CacheCommands {
  resourceCacheFill(key: string, generation: string, body: string, ttlSeconds: number, owner: string): Promise<number>;
  resourceCacheInvalidate(...keysThenTtl: Array<string | number>): Promise<number>;
}

export class ResourceCache {
  private readonly redis: Redis & CacheCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {
    // EVALSHA with the script's digest (EVAL once if Redis has not seen it): the script text is not sent per call.
    if (!('resourceCacheFill' in redis)) {
      redis.defineCommand('resourceCacheFill', { numberOfKeys: 1, lua: FILL });
      redis.defineCommand('resourceCacheInvalidate', { lua: INVALIDATE });
    }
    this.redis = redis as Redis & CacheCommands;
  }

  get enabled(): boolean {
    return this.ttlSeconds > 0;
  }

  async lookup<T>(key: CachedResourceKey): Promise<CacheLookup<T> | null> {
    if (!this.enabled) return null;
    try {
      const [body, generation, owner] = await this.redis.hmget(this.key(key), 'b', 'g', 'o');
      if (body !== null && owner === ownerOf(key)) return { hit: true, resource: JSON.parse(body) as T };
      return { hit: false, generation: generation ?? '' };
    } catch (error) {
      logger.debug({ err: error }, 'resource cache read failed; asking the service');
      return null;
    }
  }

  /** Stores a fetched resource unless it changed since `generation` was read ('' for a resource never seen). */
  async fill(key: CachedResourceKey, generation: string, resource: unknown): Promise<void> {
    if (!this.enabled) return;
    try {
      await this.redis.resourceCacheFill(this.key(key), generation, JSON.stringify(resource), this.ttlSeconds, ownerOf(key));
    } catch (error) {
      logger.debug({ err: error }, 'resource cache fill failed');
    }
  }

  /** Drops resources that changed (or may have), by id. Throws when Redis does not take it, so callers can retry. */
  async invalidate(keys: ReadonlyArray<Pick<CachedResourceKey, 'id'>>): Promise<void> {
    if (!this.enabled || keys.length === 0) return;
    // No fixed key count: ioredis takes the first argument as the number of keys.
    await this.redis.resourceCacheInvalidate(keys.length, ...keys.map((k) => this.key(k)), this.ttlSeconds);
  }

  private key({ id }: Pick<CachedResourceKey, 'id'>): string {
    return `${this.prefix}:resource:${id}`;
  }
}

const ownerOf = ({ merchantId, environment }: CachedResourceKey) => `${merchantId}:${environment}`;
