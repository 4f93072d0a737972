import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** What makes two requests "the same request" for an idempotency key: method, path and canonical body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const path = url.split('?')[0] ?? url;
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`, 'utf8').digest('hex');
}
