import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * RFC 8785 canonical JSON (keys sorted at every level, no whitespace), so two bodies that differ only in key
 * order or spacing give the same text. Undefined members are left out, as JSON.stringify does; nothing is null.
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(value ?? null) ?? 'null';
}

/**
 * What makes two requests "the same request" under one idempotency key: sha256 of what was asked (the gateway's
 * `METHOD path`, a sessions command's name) and its canonical body. The gateway and sessions both fingerprint
 * with this, so their answers to a reused key agree.
 */
export function requestFingerprint(what: string, body: unknown): string {
  return createHash('sha256').update(`${what}\n${canonicalJson(body)}`, 'utf8').digest('hex');
}
