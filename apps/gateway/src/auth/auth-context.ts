import type { Environment } from '@payments/ids';
import type { FeeSchedule } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import type { PaymentMethod } from '../merchants/payment-methods';
import type { VerificationStatus } from '../merchants/verification-status';

/** The merchant behind an API key, as routes need it (a snapshot less than a second old: ApiKeyDirectory). */
export interface AuthMerchant {
  id: string;
  name: string;
  verificationStatus: VerificationStatus;
  enabledMethods: readonly PaymentMethod[];
  /** Requests per second per key; null follows the operator's default. */
  rateLimits: { live: number | null; test: number | null };
  /** Fee rates in basis points, every method: the standard schedule with the merchant's own rates over it. */
  feeSchedule: FeeSchedule;
}

/** Who is calling: set on every /api/v1 request by the API access guard. */
export interface AuthContext {
  merchantId: string;
  /** Which data the key sees; every query filters by merchant and environment. */
  environment: Environment;
  keyId: string;
  merchant: AuthMerchant;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** The caller of an authenticated request; a route outside the guard asking for it is a wiring bug (500). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ApiError('internal_error', 'An internal error occurred.');
  return request.auth;
}
