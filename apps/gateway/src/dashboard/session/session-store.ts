import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { hashedSessionId, OpaqueSessionStore, SESSION_ID } from '../../web-session/opaque-session-store';
import { IDLE_LIFETIME_MS, type DashboardSession } from './dashboard-session';

/** Dashboard sessions in Redis (OpaqueSessionStore), and sign-ins waiting for their second step. */
export class SessionStore extends OpaqueSessionStore<DashboardSession> {
  constructor(redis: Redis) {
    super(redis, 'dashboard:session', IDLE_LIFETIME_MS);
  }

  /** A sign-in waiting for its second step: the user whose password was right, for five minutes. */
  async createPendingSignIn(userId: string): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.redis.set(`dashboard:pending:${hashedSessionId(id)}`, userId, 'PX', PENDING_SIGN_IN_MS);
    return id;
  }

  async pendingSignIn(id: string | undefined): Promise<string | null> {
    return id && SESSION_ID.test(id) ? this.redis.get(`dashboard:pending:${hashedSessionId(id)}`) : null;
  }

  async endPendingSignIn(id: string | undefined): Promise<void> {
    if (id && SESSION_ID.test(id)) await this.redis.del(`dashboard:pending:${hashedSessionId(id)}`);
  }
}

const PENDING_SIGN_IN_MS = 5 * 60 * 1000;
