// The e-mailed one-time codes that sign a customer into their wallet: what a code is, when it may be used, and how
// often an address may be sent one. Pure: the clock and the stored rows come from the caller.
import { randomInt } from 'node:crypto';

/** A code works for 10 minutes. */
export const CODE_LIFETIME_MS = 10 * 60_000;
/** Five wrong tries kill the code (a new one must be asked for): at most 5 guesses in a million per code. */
export const MAX_FAILED_ATTEMPTS = 5;
/** Codes sent to one address (and environment): one a minute, ten a day; past that nothing is sent, same answer. */
export const CODES_PER_DAY = 10;
export const CODE_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;

/** Six digits from the CSPRNG, leading zeros kept. */
export function newSignInCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** What the customer typed, as a code: spaces and dashes dropped (copied from a mail), else null. */
export function normaliseCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 20) return null;
  const code = input.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(code) ? code : null;
}

export interface StoredCode {
  expiresAt: Date;
  failedAttempts: number;
  usedAt: Date | null;
  voidedAt: Date | null;
}

export type CodeState = 'usable' | 'used' | 'voided' | 'expired' | 'dead';

export function codeState(code: StoredCode, now: Date): CodeState {
  if (code.usedAt) return 'used';
  if (code.voidedAt) return 'voided';
  if (code.failedAttempts >= MAX_FAILED_ATTEMPTS) return 'dead';
  return code.expiresAt.getTime() > now.getTime() ? 'usable' : 'expired';
}

export function codeExpiry(now: Date): Date {
  return new Date(now.getTime() + CODE_LIFETIME_MS);
}

/** Whether another code may go to an address that was sent codes at `sentAt` (any order). */
export function mayIssueCode(sentAt: readonly Date[], now: Date): boolean {
  const t = now.getTime();
  const today = sentAt.filter((at) => t - at.getTime() < DAY_MS);
  return today.length < CODES_PER_DAY && today.every((at) => t - at.getTime() >= CODE_INTERVAL_MS);
}

/** Since when the codes sent count toward the limits. */
export function rateWindowStart(now: Date): Date {
  return new Date(now.getTime() - DAY_MS);
}

// One address, local@domain with a dot in the domain, nothing that could start a second header or recipient (the
// mail outbox's rule, plus a top-level domain).
const ADDRESS = /^[^\s<>()[\],;:"@\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** A wallet's address as stored and compared: trimmed, lower-case; null when it is not one address. */
export function normaliseEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const email = input.trim().toLowerCase();
  return email.length <= 254 && ADDRESS.test(email) ? email : null;
}
