// Typed errors from the Error shape (`{error: {code, message, param?, request_id?}}`): one class per kind of
// failure a merchant's code reacts to differently, each with the code, status and Request-Id.

export interface ErrorDetails {
  status?: number;
  code: string;
  message: string;
  param?: string;
  requestId?: string;
  headers?: Headers;
  /** The Idempotency-Key the request carried (POST). */
  idempotencyKey?: string;
  /** Attempts the call made, retries included. */
  attempts?: number;
  cause?: unknown;
}

/** Base of every error the client throws. `status` is undefined when no answer came (network, timeout). */
export class PaymentsError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  /** The field at fault, when one is. */
  readonly param: string | undefined;
  /** The `Request-Id` of the answer: quote it to support. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;
  readonly idempotencyKey: string | undefined;
  /** Attempts the call made before it gave up, retries included (undefined outside a call: webhook checks). */
  readonly attempts: number | undefined;

  constructor(details: ErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.param = details.param;
    this.requestId = details.requestId;
    this.headers = details.headers;
    this.idempotencyKey = details.idempotencyKey;
    this.attempts = details.attempts;
  }
}

/** 400: the request is invalid (`invalid_request`, `idempotency_key_required`); `param` names the field. */
export class InvalidRequestError extends PaymentsError {}
/** 401 `invalid_api_key`: the key is wrong, revoked or disabled. */
export class AuthenticationError extends PaymentsError {}
/** 403: `account_not_verified` (live keys before verification), `live_mode_not_allowed` (simulate with a live key). */
export class PermissionError extends PaymentsError {}
/** 404 `not_found`. */
export class NotFoundError extends PaymentsError {}
/** 409 `idempotency_key_reused` (same key, other request) or `idempotency_request_in_progress` (retried). */
export class IdempotencyError extends PaymentsError {}
/** 409: `invalid_state`, `payment_methods_unavailable`, `refund_exceeds_payment`. */
export class ConflictError extends PaymentsError {}

/** 429 `rate_limited`, after the client's retries; the `RateLimit-*` and `Retry-After` headers as numbers. */
export class RateLimitError extends PaymentsError {
  readonly limit: number | undefined;
  readonly remaining: number | undefined;
  /** Seconds until the bucket refills. */
  readonly reset: number | undefined;
  /** Seconds the service asked to wait. */
  readonly retryAfter: number | undefined;

  constructor(details: ErrorDetails) {
    super(details);
    this.limit = numberHeader(details.headers, 'ratelimit-limit');
    this.remaining = numberHeader(details.headers, 'ratelimit-remaining');
    this.reset = numberHeader(details.headers, 'ratelimit-reset');
    this.retryAfter = numberHeader(details.headers, 'retry-after');
  }
}

/** 503 `service_unavailable`, after the client's retries. */
export class ServiceUnavailableError extends PaymentsError {}
/** 500 `internal_error`, or any other status the API does not document. */
export class ApiError extends PaymentsError {}
/**
 * No answer: the connection failed or was lost (`code` `connection_error`), timed out (`timeout`), or the caller's
 * signal aborted the call (`aborted`, seen by hooks only: the call rejects with the signal's reason).
 */
export class ConnectionError extends PaymentsError {}
/** A webhook that does not verify (signature, timestamp or body); `code` says which check failed. */
export class WebhookSignatureError extends PaymentsError {}

function numberHeader(headers: Headers | undefined, name: string): number | undefined {
  const value = headers?.get(name);
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** The typed error for a failed answer. */
export function errorFromAnswer(status: number, body: unknown, headers: Headers, idempotencyKey?: string, attempts?: number): PaymentsError {
  const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown; request_id?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const details: ErrorDetails = {
    status,
    code,
    message: typeof error?.message === 'string' ? error.message : `the service answered ${status}`,
    param: typeof error?.param === 'string' ? error.param : undefined,
    requestId: headers.get('request-id') ?? (typeof error?.request_id === 'string' ? error.request_id : undefined),
    headers,
    idempotencyKey,
    attempts,
  };
  if (code === 'idempotency_key_reused' || code === 'idempotency_request_in_progress') return new IdempotencyError(details);
  switch (status) {
    case 400:
      return new InvalidRequestError(details);
    case 401:
      return new AuthenticationError(details);
    case 403:
      return new PermissionError(details);
    case 404:
      return new NotFoundError(details);
    case 409:
      return new ConflictError(details);
    case 429:
      return new RateLimitError(details);
    case 503:
      return new ServiceUnavailableError(details);
    default:
      return new ApiError(details);
  }
}
