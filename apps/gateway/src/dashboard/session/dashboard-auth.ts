import type { Role } from '../../accounts/roles';
import { parseCookies, serializeCookie } from './cookies';
import type { Environment } from '@payments/ids';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { chooseDashboardLanguage, type DashboardLanguage } from '../web/i18n';
import { csrfToken, csrfTokenValid, newCsrfSecret, sameOrigin } from './csrf';
import { ABSOLUTE_LIFETIME_MS, sessionUsable, type DashboardSession } from './dashboard-session';
import type { SessionStore } from './session-store';

/** The session cookie: `__Host-` binds it to this host, https (or localhost) and path `/`. */
export const SESSION_COOKIE = '__Host-dashboard_session';
/** A signed-out browser's CSRF secret (sign-in, sign-up and reset forms). */
export const ANONYMOUS_CSRF_COOKIE = '__Host-dashboard_csrf';
export const LANGUAGE_COOKIE = 'dashboard_lang';

export type { Role };

/** A user as the dashboard's session check needs them: one read per page. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
  merchantId: string;
  sessionEpoch: number;
  merchant: { id: string; name: string; verificationStatus: string; rejectionReason: string | null };
}

/** Where the session check finds a user (the accounts' repository). */
export interface SessionUsers {
  findForSession(userId: string): Promise<SessionUser | null>;
}

/** What every page has: language, CSP nonce, a CSRF token for its forms, its own path. */
export interface PageRequest {
  lang: DashboardLanguage;
  nonce: string;
  csrf: string;
  path: string;
}

/** A signed-in page: the user, their merchant, and the environment of the URL. */
export interface SignedInRequest extends PageRequest {
  user: SessionUser;
  environment: Environment;
  session: DashboardSession;
  sid: string;
}

/** A form whose CSRF token or origin is wrong, or posted after its session ended: nothing is done. */
export class FormRefused extends Error {
  constructor(readonly reason: 'csrf' | 'origin' | 'signed_out') {
    super(`form refused: ${reason}`);
  }
}

const cookieOptions = { path: '/', httpOnly: true, secure: true, sameSite: 'lax' as const };

/**
 * Sign-in state of the dashboard's browsers, handled on the dashboard's own routes only (the API's requests never
 * parse a cookie): sessions in Redis behind an opaque cookie, a CSRF token on every form, the origin of every post.
 */
export class DashboardAuth {
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: SessionUsers,
    /** Origins the dashboard is served from (PUBLIC_BASE_URL's): a post naming another origin is refused. */
    private readonly ownOrigins: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** A signed-out page: its language (remembered when chosen) and a CSRF token from the browser's anonymous secret. */
  publicPage(request: FastifyRequest, reply: FastifyReply): PageRequest {
    const cookies = this.cookies(request);
    const lang = this.language(request, reply, cookies);
    let secret = cookies[ANONYMOUS_CSRF_COOKIE];
    if (!secret || secret.length > 100) {
      secret = newCsrfSecret();
      this.setCookie(reply, ANONYMOUS_CSRF_COOKIE, secret, { sameSite: 'strict' });
    }
    return { lang, nonce: nonce(), csrf: csrfToken(secret), path: pathOf(request) };
  }

  /**
   * A signed-in page in `environment`, or null after sending the browser to sign in (the page it wanted comes back
   * after). A session whose user was removed, whose epoch is old (logged out everywhere, password reset) or that is
   * past its lifetime is ended here.
   */
  async signedInPage(request: FastifyRequest, reply: FastifyReply, environment: Environment): Promise<SignedInRequest | null> {
    const cookies = this.cookies(request);
    const lang = this.language(request, reply, cookies);
    const found = await this.current(cookies);
    if (!found) {
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(pathOf(request))}` : '';
      await reply.redirect(`/dashboard/login${next}`, 303);
      return null;
    }
    if (found.session.environment !== environment) {
      found.session.environment = environment;
      await this.sessions.update(found.sid, found.session);
    }
    return { lang, nonce: nonce(), csrf: csrfToken(found.session.csrfSecret), path: pathOf(request), environment, ...found };
  }

  /** Checks a signed-in form: origin, then its token against the session's secret. Throws FormRefused. */
  async signedInForm(request: FastifyRequest, reply: FastifyReply, environment: Environment, body: unknown): Promise<SignedInRequest> {
    this.checkOrigin(request);
    const cookies = this.cookies(request);
    const found = await this.current(cookies);
    if (!found) throw new FormRefused('signed_out');
    if (!csrfTokenValid(found.session.csrfSecret, tokenOf(body))) throw new FormRefused('csrf');
    return { lang: this.language(request, reply, cookies), nonce: nonce(), csrf: csrfToken(found.session.csrfSecret), path: pathOf(request), environment, ...found };
  }

  /** Checks a signed-out form (sign-in, sign-up, reset): origin, then its token against the browser's anonymous secret. */
  publicForm(request: FastifyRequest, reply: FastifyReply, body: unknown): PageRequest {
    this.checkOrigin(request);
    const cookies = this.cookies(request);
    if (!csrfTokenValid(cookies[ANONYMOUS_CSRF_COOKIE], tokenOf(body))) throw new FormRefused('csrf');
    return this.publicPage(request, reply);
  }

  /** Starts a session for a user who proved who they are; a session this browser had is ended (no fixation). */
  async signIn(request: FastifyRequest, reply: FastifyReply, user: Pick<SessionUser, 'id' | 'merchantId' | 'sessionEpoch'>): Promise<void> {
    await this.sessions.destroy(this.cookies(request)[SESSION_COOKIE]);
    const sid = await this.sessions.create({
      userId: user.id,
      merchantId: user.merchantId,
      epoch: user.sessionEpoch,
      csrfSecret: newCsrfSecret(),
      signedInAt: this.now(),
    });
    this.setCookie(reply, SESSION_COOKIE, sid, { maxAge: ABSOLUTE_LIFETIME_MS / 1000 });
  }

  /** Ends this browser's session (the key in Redis goes: every instance forgets it at once). */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await this.sessions.destroy(this.cookies(request)[SESSION_COOKIE]);
    void reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { ...cookieOptions, maxAge: 0 }));
  }

  private async current(cookies: Record<string, string | undefined>): Promise<{ sid: string; session: DashboardSession; user: SessionUser } | null> {
    const sid = cookies[SESSION_COOKIE];
    const session = await this.sessions.read(sid);
    if (!sid || !session) return null;
    const user = await this.users.findForSession(session.userId);
    if (!user || user.merchantId !== session.merchantId || !sessionUsable(session, user.sessionEpoch, this.now())) {
      await this.sessions.destroy(sid);
      return null;
    }
    return { sid, session, user };
  }

  private checkOrigin(request: FastifyRequest): void {
    if (!sameOrigin(request.headers, this.ownOrigins)) throw new FormRefused('origin');
  }

  private cookies(request: FastifyRequest): Record<string, string | undefined> {
    return parseCookies(request.headers.cookie);
  }

  private language(request: FastifyRequest, reply: FastifyReply, cookies: Record<string, string | undefined>): DashboardLanguage {
    const query = (request.query as Record<string, unknown> | undefined)?.lang;
    const lang = chooseDashboardLanguage(query, cookies[LANGUAGE_COOKIE], request.headers['accept-language']);
    if ((query === 'en' || query === 'ar') && cookies[LANGUAGE_COOKIE] !== query) {
      void reply.header('set-cookie', serializeCookie(LANGUAGE_COOKIE, lang, { path: '/', secure: true, sameSite: 'lax', maxAge: 365 * 86400 }));
    }
    return lang;
  }

  private setCookie(reply: FastifyReply, name: string, value: string, options: { sameSite?: 'lax' | 'strict'; maxAge?: number } = {}): void {
    void reply.header('set-cookie', serializeCookie(name, value, { ...cookieOptions, ...options }));
  }
}

function tokenOf(body: unknown): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)._csrf : undefined;
}

function nonce(): string {
  return randomBytes(16).toString('base64');
}

function pathOf(request: FastifyRequest): string {
  return request.url.length > 2048 ? request.url.slice(0, 2048) : request.url;
}
