// The one error domain code throws for a refused command. Codes are the API's error codes, so the edge maps them
// to a status without guessing: invalid_state and payment_methods_unavailable 409, invalid_request 400,
// live_mode_not_allowed 403.
export type DomainErrorCode = 'invalid_state' | 'invalid_request' | 'payment_methods_unavailable' | 'live_mode_not_allowed';

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** The request field at fault, when one is. */
    readonly param?: string,
  ) {
    super(message);
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
