import type { Environment } from '@payments/ids';

/** A signed-in browser's session as kept server-side (Redis); the cookie carries only its random id. */
export interface DashboardSession {
  userId: string;
  merchantId: string;
  /** The user's session epoch at sign-in: a later "log out everywhere" or password reset bumps it and ends this session. */
  epoch: number;
  /** Secret of this session's CSRF tokens (a new one at every sign-in). */
  csrfSecret: string;
  /** When the sign-in happened (ms since epoch): a session ends ABSOLUTE_LIFETIME_MS after it whatever its use. */
  signedInAt: number;
  /** The environment the dashboard showed last: where `/dashboard` leads. */
  environment?: Environment;
}

/** An idle session ends after 30 minutes without a request. */
export const IDLE_LIFETIME_MS = 30 * 60 * 1000;
/** Nobody stays signed in longer than 12 hours. */
export const ABSOLUTE_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Whether a stored session may still be used at `now` by a user whose current epoch is `currentEpoch`. */
export function sessionUsable(session: DashboardSession, currentEpoch: number, now: number): boolean {
  return session.epoch === currentEpoch && now - session.signedInAt < ABSOLUTE_LIFETIME_MS;
}
