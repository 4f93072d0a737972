import { ApiError } from '@payments/platform';

const PATTERNS = {
  payment_intent: /^pi_(live|test)_[A-Za-z0-9_-]{1,64}$/,
  invoice: /^inv_(test_)?[A-Za-z0-9_-]{1,64}$/,
} as const;

/**
 * A path id that cannot name an object of this kind is simply not found (404), like an id of another merchant
 * or environment: the answer never tells which ids exist elsewhere.
 */
export function requireObjectId(kind: keyof typeof PATTERNS, id: string): string {
  if (!PATTERNS[kind].test(id)) throw new ApiError('not_found', `No ${kind.replace('_', ' ')} ${id.slice(0, 80)}.`, 'id');
  return id;
}
