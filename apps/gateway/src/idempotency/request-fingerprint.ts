import { requestFingerprint as fingerprint } from '@payments/contracts';

/** What makes two requests "the same request" for an idempotency key: method, path and canonical body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const path = url.split('?')[0] ?? url;
  return fingerprint(`${method.toUpperCase()} ${path}`, body);
}
