/** Identity verification (DESIGN §8): live keys and live data need `verified`; test mode works before. */
export const VERIFICATION_STATUSES = ['unverified', 'pending', 'verified', 'rejected'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];
