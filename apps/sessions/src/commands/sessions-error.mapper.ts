import { ApiError, type ErrorMapper } from '@payments/platform';
import { isDomainError } from '../domain';
import { isConcurrencyError } from '../event-store/concurrency.error';

/** Domain refusals keep their code (invalid_state 409, live_mode_not_allowed 403, ...); anything else stays a 500. */
export const mapSessionsError: ErrorMapper = (error) => {
  if (isDomainError(error)) return new ApiError(error.code, error.message);
  // Still conflicting after every retry: the caller retries later with the same idempotency key.
  if (isConcurrencyError(error)) return new ApiError('service_unavailable', 'The object is being changed by another request; retry.');
  return undefined;
};
