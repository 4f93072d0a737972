import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so the same request always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** sha256 of the command name and its parameters: tells a retried create from a different one under the same key. */
export function requestFingerprint(command: string, params: unknown): string {
  return createHash('sha256').update(command).update('\n').update(canonicalJson(params)).digest('hex');
}
