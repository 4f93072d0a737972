import { fastifyCookie } from '@fastify/cookie';

/** The request's cookies (parsed on dashboard routes only: API requests never pay for it). */
export function parseCookies(header: string | undefined): Record<string, string | undefined> {
  return header ? fastifyCookie.parse(header) : {};
}

export const serializeCookie: typeof fastifyCookie.serialize = (name, value, options) => fastifyCookie.serialize(name, value, options);
