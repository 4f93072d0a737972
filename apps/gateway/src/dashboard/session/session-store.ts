import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { IDLE_LIFETIME_MS, type DashboardSession } from './dashboard-session';

/** Session ids are 32 random bytes; Redis keys hold their SHA-256, so a dump of Redis holds no usable cookie. */
const hashed = (id: string) => createHash('sha256').update(id).digest('base64url');
const keyOf = (sid: string) => `dashboard:session:${hashed(sid)}`;
const SID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Dashboard sessions in Redis, revocable (deleting the key ends it on every gateway instance at once) and sliding:
 * each read renews the idle expiry in the same round trip (GETEX).
 */
export class SessionStore {
  constructor(private readonly redis: Redis) {}

  async create(session: DashboardSession): Promise<string> {
    const sid = randomBytes(32).toString('base64url');
    await this.redis.set(keyOf(sid), JSON.stringify(session), 'PX', IDLE_LIFETIME_MS);
    return sid;
  }

  async read(sid: string | undefined): Promise<DashboardSession | null> {
    if (!sid || !SID.test(sid)) return null;
    const raw = await this.redis.getex(keyOf(sid), 'PX', IDLE_LIFETIME_MS);
    return raw ? (JSON.parse(raw) as DashboardSession) : null;
  }

  async update(sid: string, session: DashboardSession): Promise<void> {
    await this.redis.set(keyOf(sid), JSON.stringify(session), 'PX', IDLE_LIFETIME_MS, 'XX');
  }

  async destroy(sid: string | undefined): Promise<void> {
    if (sid && SID.test(sid)) await this.redis.del(keyOf(sid));
  }

  /** A sign-in waiting for its second step: the user whose password was right, for five minutes. */
  async createPendingSignIn(userId: string): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.redis.set(`dashboard:pending:${hashed(id)}`, userId, 'PX', PENDING_SIGN_IN_MS);
    return id;
  }

  async pendingSignIn(id: string | undefined): Promise<string | null> {
    return id && SID.test(id) ? this.redis.get(`dashboard:pending:${hashed(id)}`) : null;
  }

  async endPendingSignIn(id: string | undefined): Promise<void> {
    if (id && SID.test(id)) await this.redis.del(`dashboard:pending:${hashed(id)}`);
  }
}

const PENDING_SIGN_IN_MS = 5 * 60 * 1000;
