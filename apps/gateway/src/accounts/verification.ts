import type { VerificationStatus } from '../merchants/verification-status';
import { isCountryCode } from './countries';

/** What a merchant submits for identity verification (DESIGN §8). */
export interface VerificationDetails {
  businessName: string;
  /** ISO 3166-1 alpha-2, any case. */
  country: string;
  ownerName: string;
  /** A phone number (digits, optionally +, spaces, dashes, dots, brackets) or an e-mail address. */
  contact: string;
}

export type VerificationField = keyof VerificationDetails;

export const REJECTION_REASON_MAX_LENGTH = 500;
const NAME_MAX_LENGTH = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]+$/;

/** From which statuses each step may be taken. A verified merchant has nothing to submit; an operator may decide at any time. */
export const SUBMITTABLE_FROM: readonly VerificationStatus[] = ['unverified', 'rejected'];
export const VERIFIABLE_FROM: readonly VerificationStatus[] = ['unverified', 'pending', 'rejected'];
export const REJECTABLE_FROM: readonly VerificationStatus[] = ['unverified', 'pending', 'rejected', 'verified'];

export type DetailsCheck = { ok: true; details: VerificationDetails } | { ok: false; field: VerificationField; message: string };

/** The details trimmed and normalized (country upper-case), or the first field at fault. */
export function checkVerificationDetails(input: Partial<Record<VerificationField, unknown>>): DetailsCheck {
  const text = (field: VerificationField) => (typeof input[field] === 'string' ? (input[field] as string).trim().replace(/\s+/g, ' ') : '');
  const businessName = text('businessName');
  const ownerName = text('ownerName');
  const country = text('country').toUpperCase();
  const contact = text('contact');
  for (const [field, value] of [['businessName', businessName], ['ownerName', ownerName]] as const) {
    if (value.length === 0 || value.length > NAME_MAX_LENGTH) return { ok: false, field, message: `${field} must be 1 to ${NAME_MAX_LENGTH} characters` };
  }
  if (!isCountryCode(country)) return { ok: false, field: 'country', message: 'country must be an ISO 3166-1 alpha-2 code, such as PS or JO' };
  if (!isContact(contact)) return { ok: false, field: 'contact', message: 'contact must be a phone number or an e-mail address' };
  return { ok: true, details: { businessName, country, ownerName, contact } };
}

function isContact(value: string): boolean {
  if (value.length === 0 || value.length > 254) return false;
  if (value.includes('@')) return EMAIL.test(value);
  const digits = value.replace(/\D/g, '').length;
  return PHONE.test(value) && digits >= 6 && digits <= 15;
}

/** The operator's reason, trimmed; null when empty or too long. */
export function checkRejectionReason(reason: unknown): string | null {
  const text = typeof reason === 'string' ? reason.trim() : '';
  return text.length > 0 && text.length <= REJECTION_REASON_MAX_LENGTH ? text : null;
}
