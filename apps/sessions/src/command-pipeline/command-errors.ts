// Refusals of the command pipeline that are not the aggregates' own (those are DomainError). Each carries the
// API's error code; the edge (sessions-error.mapper.ts) turns them into the Error shape.

export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
  readonly code = 'not_found';

  constructor(
    readonly kind: 'payment intent' | 'invoice',
    readonly id: string,
  ) {
    super(`No ${kind} ${id}`);
  }
}

export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  readonly code = 'idempotency_key_reused';

  constructor() {
    super('This Idempotency-Key was already used with a different request.');
  }
}
