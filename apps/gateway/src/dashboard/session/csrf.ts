import Tokens from '@fastify/csrf';

const tokens = new Tokens({});

/** A fresh secret for a session's (or a signed-out browser's) CSRF tokens. */
export function newCsrfSecret(): string {
  return tokens.secretSync();
}

/** A token for one form: any number of them verify against the same secret. */
export function csrfToken(secret: string): string {
  return tokens.create(secret);
}

export function csrfTokenValid(secret: string | undefined, token: unknown): boolean {
  return typeof secret === 'string' && secret.length > 0 && typeof token === 'string' && token.length > 0 && token.length < 200 && tokens.verify(secret, token);
}

/**
 * A POST from a page of ours: the browser's Origin (or, without it, the Referer's origin) is the dashboard's own.
 * A request that names no origin at all is not a browser's cross-site form and is left to the token.
 */
export function sameOrigin(headers: { origin?: string | string[]; referer?: string | string[] }, ownOrigins: readonly string[]): boolean {
  const named = typeof headers.origin === 'string' ? headers.origin : typeof headers.referer === 'string' ? originOf(headers.referer) : undefined;
  if (named === undefined) return true;
  return ownOrigins.includes(named);
}

/** The Referer's origin; a Referer that is not a URL names no origin of ours. */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : 'invalid';
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins the dashboard's forms may come from: PUBLIC_BASE_URL's. On a development address (localhost) the other
 * names of this machine count too, so a browser on http://127.0.0.1:3000 works as well as on http://localhost:3000.
 */
export function dashboardOrigins(publicBaseUrl: string): string[] {
  const url = new URL(publicBaseUrl);
  if (!LOOPBACK_NAMES.includes(url.hostname)) return [url.origin];
  return LOOPBACK_NAMES.map((name) => `${url.protocol}//${name}${url.port ? `:${url.port}` : ''}`);
}
