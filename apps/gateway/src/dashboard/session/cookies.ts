import { parse, serialize } from 'cookie';

/** The request's cookies (parsed on dashboard routes only: API requests never pay for it). */
export function parseCookies(header: string | undefined): Record<string, string | undefined> {
  return header ? parse(header) : {};
}

export const serializeCookie = serialize;
