/** Error codes of the public API (DESIGN §5 Errors) with their HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  idempotency_key_required: 400,
  invalid_api_key: 401,
  account_not_verified: 403,
  live_mode_not_allowed: 403,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  payment_methods_unavailable: 409,
  invalid_state: 409,
  refund_exceeds_payment: 409,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: { code: string; message: string; param?: string; request_id?: string };
}

/**
 * An error meant for the caller: its code, message and optional param reach the response as they are.
 * Anything that is not an ApiError becomes a bare 500 internal_error, so no internal detail leaks.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  toJSON(): { code: ErrorCode; message: string; param?: string } {
    return this.param === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, param: this.param };
  }

  /** The response body in the spec's Error shape, with the request's id. */
  bodyFor(requestId: string): ErrorBody {
    return { error: { ...this.toJSON(), request_id: requestId } };
  }

  static fromJSON(value: { code: ErrorCode; message: string; param?: string }): ApiError {
    const code = value.code in ERROR_STATUS ? value.code : 'internal_error';
    // An owner's 503 (busy, a lock held too long) says when to retry, as the gateway's own 503 does.
    return new ApiError(code, value.message, value.param, code === 'service_unavailable' ? { 'Retry-After': '1' } : undefined);
  }
}
