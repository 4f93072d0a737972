import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCookies, serializeCookie } from '../dashboard/session/cookies';
import { csrfToken, csrfTokenValid, newCsrfSecret, sameOrigin } from '../dashboard/session/csrf';
import { FormRefused } from '../dashboard/session/dashboard-auth';
import type { OpaqueSessionStore } from '../web-session/opaque-session-store';
import { normaliseEmail } from './domain/sign-in-codes';
import { liveSignIns, signedInWallet, WALLET_ABSOLUTE_LIFETIME_MS, type SignedInWallet, type WalletEnvironment, type WalletSession } from './domain/wallet-session';

export { FormRefused };

/** The signed-in wallet's cookie: `__Host-` binds it to this host, https (or localhost) and path `/`. */
export const WALLET_SESSION_COOKIE = '__Host-wallet_session';
/** A signed-out browser's form secret (the e-mail and code forms). */
export const WALLET_CSRF_COOKIE = '__Host-wallet_csrf';
/** Which address a code was sent to, per environment, while the customer types it (no secret: the code is the proof). */
export const WALLET_PENDING_COOKIE = '__Host-wallet_pending';

const cookieOptions = { path: '/', httpOnly: true, secure: true, sameSite: 'lax' as const };
const PENDING_MS = 10 * 60_000;

/** What a page needs to draw the wallet: who is signed in (this environment), a form token, the address awaiting its code. */
export interface WalletState {
  signedIn: SignedInWallet | null;
  csrf: string;
  pendingEmail: string | null;
}

/**
 * The customer wallet's browser sign-in (the checkout and the wallet page): a session in Redis behind an opaque,
 * HTTP-only, Secure, SameSite=Lax cookie; every form carries a token of the session's secret (or, signed out, of the
 * browser's anonymous secret) and names our origin. Nothing here pays: the checkout's pay form does, on a click.
 */
export class WalletAuth {
  constructor(
    private readonly sessions: OpaqueSessionStore<WalletSession>,
    /** Origins the pages are served from (PUBLIC_BASE_URL's): a post naming another origin is refused. */
    private readonly ownOrigins: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  async state(request: FastifyRequest, reply: FastifyReply, environment: WalletEnvironment): Promise<WalletState> {
    const cookies = parseCookies(request.headers.cookie);
    const session = await this.sessions.read(cookies[WALLET_SESSION_COOKIE]);
    const signedIn = signedInWallet(session, environment, this.now());
    let secret = session?.csrfSecret ?? cookies[WALLET_CSRF_COOKIE];
    if (!secret || secret.length > 100) {
      secret = newCsrfSecret();
      this.setCookie(reply, WALLET_CSRF_COOKIE, secret, { sameSite: 'strict' });
    }
    return { signedIn, csrf: csrfToken(secret), pendingEmail: signedIn ? null : pendingOf(cookies[WALLET_PENDING_COOKIE], environment) };
  }

  /** A sign-in form (e-mail, code): our origin, and a token of this browser's session or anonymous secret. */
  async checkSignInForm(request: FastifyRequest, body: unknown): Promise<void> {
    this.checkOrigin(request);
    const cookies = parseCookies(request.headers.cookie);
    const token = tokenOf(body);
    if (csrfTokenValid(cookies[WALLET_CSRF_COOKIE], token)) return;
    const session = await this.sessions.read(cookies[WALLET_SESSION_COOKIE]);
    if (!csrfTokenValid(session?.csrfSecret, token)) throw new FormRefused('csrf');
  }

  /** A form of a signed-in wallet (pay, top up, profile, sign out): our origin, the session's token, still signed in. */
  async signedInForm(request: FastifyRequest, body: unknown, environment: WalletEnvironment): Promise<SignedInWallet> {
    this.checkOrigin(request);
    const session = await this.sessions.read(parseCookies(request.headers.cookie)[WALLET_SESSION_COOKIE]);
    if (!session) throw new FormRefused('signed_out');
    if (!csrfTokenValid(session.csrfSecret, tokenOf(body))) throw new FormRefused('csrf');
    const wallet = signedInWallet(session, environment, this.now());
    if (!wallet) throw new FormRefused('signed_out');
    return wallet;
  }

  /** The address a code was sent to, remembered for the code form (10 minutes, the code's lifetime). */
  rememberPending(request: FastifyRequest, reply: FastifyReply, environment: WalletEnvironment, email: string): void {
    const pending = pendingMap(parseCookies(request.headers.cookie)[WALLET_PENDING_COOKIE]);
    pending[environment] = email;
    this.setCookie(reply, WALLET_PENDING_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), { sameSite: 'strict', maxAge: PENDING_MS / 1000 });
  }

  pendingEmail(request: FastifyRequest, environment: WalletEnvironment): string | null {
    return pendingOf(parseCookies(request.headers.cookie)[WALLET_PENDING_COOKIE], environment);
  }

  forgetPending(reply: FastifyReply): void {
    this.setCookie(reply, WALLET_PENDING_COOKIE, '', { maxAge: 0 });
  }

  /**
   * Signs `wallet` in for its environment in a new session (a new id and form secret: no fixation); the browser's
   * sign-in of the other environment, if still within its hour, is carried over.
   */
  async signIn(request: FastifyRequest, reply: FastifyReply, environment: WalletEnvironment, wallet: { id: string; email: string }): Promise<void> {
    const old = parseCookies(request.headers.cookie)[WALLET_SESSION_COOKIE];
    const previous = await this.sessions.read(old);
    await this.sessions.destroy(old);
    const now = this.now();
    const wallets = { ...liveSignIns(previous, now), [environment]: { walletId: wallet.id, email: wallet.email, signedInAt: now } };
    const sid = await this.sessions.create({ csrfSecret: newCsrfSecret(), wallets });
    this.setCookie(reply, WALLET_SESSION_COOKIE, sid, { maxAge: WALLET_ABSOLUTE_LIFETIME_MS / 1000 });
    this.forgetPending(reply);
  }

  /** Ends this browser's wallet session (both environments): the key in Redis goes, every instance forgets it. */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await this.sessions.destroy(parseCookies(request.headers.cookie)[WALLET_SESSION_COOKIE]);
    this.setCookie(reply, WALLET_SESSION_COOKIE, '', { maxAge: 0 });
  }

  private checkOrigin(request: FastifyRequest): void {
    if (!sameOrigin(request.headers, this.ownOrigins)) throw new FormRefused('origin');
  }

  private setCookie(reply: FastifyReply, name: string, value: string, options: { sameSite?: 'lax' | 'strict'; maxAge?: number } = {}): void {
    void reply.header('set-cookie', serializeCookie(name, value, { ...cookieOptions, ...options }));
  }
}

function tokenOf(body: unknown): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)._csrf : undefined;
}

function pendingMap(raw: string | undefined): Partial<Record<WalletEnvironment, string>> {
  if (!raw || raw.length > 1200) return {};
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object') return {};
    const map: Partial<Record<WalletEnvironment, string>> = {};
    for (const environment of ['live', 'test'] as const) {
      const email = normaliseEmail((parsed as Record<string, unknown>)[environment]);
      if (email) map[environment] = email;
    }
    return map;
  } catch {
    return {};
  }
}

function pendingOf(raw: string | undefined, environment: WalletEnvironment): string | null {
  return pendingMap(raw)[environment] ?? null;
}
