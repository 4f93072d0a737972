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

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
