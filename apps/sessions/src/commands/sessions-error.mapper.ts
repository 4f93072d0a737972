import { ApiError, type ErrorMapper } from '@payments/platform';
import { IdempotencyKeyReusedError, SessionNotFoundError } from '../command-pipeline/command-errors';
import { isDomainError } from '../domain';
import { isConcurrencyError } from '../event-store/concurrency.error';

/**
 * The edge: refusals of the domain and the pipeline become the Error shape here and nowhere else. Domain codes are
 * the API's (invalid_state 409, live_mode_not_allowed 403, ...); anything else stays a 500.
 */
export const mapSessionsError: ErrorMapper = (error) => {
  if (isDomainError(error)) return new ApiError(error.code, error.message, error.param);
  if (error instanceof SessionNotFoundError) return new ApiError('not_found', error.message, 'id');
  if (error instanceof IdempotencyKeyReusedError) return new ApiError('idempotency_key_reused', error.message);
  // Still conflicting after every retry: the caller retries later with the same idempotency key.
  if (isConcurrencyError(error)) return new ApiError('service_unavailable', 'The object is being changed by another request; retry.');
  return undefined;
};
