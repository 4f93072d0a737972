import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Session ids are 32 random bytes; Redis keys hold their SHA-256, so a dump of Redis holds no usable cookie. */
export const hashedSessionId = (id: string) => createHash('sha256').update(id).digest('base64url');
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Browser sessions in Redis behind an opaque cookie (the dashboard's and the customer wallets'): revocable (deleting
 * the key ends it on every gateway instance at once) and sliding (each read renews the idle expiry in the same round
 * trip, GETEX).
 */
export class OpaqueSessionStore<T> {
  constructor(
    protected readonly redis: Redis,
    /** `dashboard:session`, `wallet:session`: each kind of session has its own keys. */
    private readonly prefix: string,
    private readonly idleMs: number,
  ) {}

  async create(session: T): Promise<string> {
    const sid = randomBytes(32).toString('base64url');
    await this.redis.set(this.keyOf(sid), JSON.stringify(session), 'PX', this.idleMs);
    return sid;
  }

  async read(sid: string | undefined): Promise<T | null> {
    if (!sid || !SESSION_ID.test(sid)) return null;
    const raw = await this.redis.getex(this.keyOf(sid), 'PX', this.idleMs);
    return raw ? (JSON.parse(raw) as T) : null;
  }

  async update(sid: string, session: T): Promise<void> {
    await this.redis.set(this.keyOf(sid), JSON.stringify(session), 'PX', this.idleMs, 'XX');
  }

  async destroy(sid: string | undefined): Promise<void> {
    if (sid && SESSION_ID.test(sid)) await this.redis.del(this.keyOf(sid));
  }

  /** The Redis key of a session id (tests age a session through it). */
  keyOf(sid: string): string {
    return `${this.prefix}:${hashedSessionId(sid)}`;
  }
}
