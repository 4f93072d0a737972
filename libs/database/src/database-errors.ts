/** The SQLSTATE of a Postgres error, whether pg's own or TypeORM's QueryFailedError around it. */
export function postgresErrorCode(error: unknown): string | undefined {
  const failure = error as { code?: unknown; driverError?: { code?: unknown } } | null | undefined;
  const code = failure?.driverError?.code ?? failure?.code;
  return typeof code === 'string' ? code : undefined;
}

/** lock_not_available (lock_timeout) and query_canceled (statement_timeout, or an operator's cancel). */
const TIMEOUT_CODES = new Set(['55P03', '57014']);

/**
 * A statement that gave up waiting (the pool's lock_timeout or statement_timeout): nothing it did is kept, and
 * the same work is expected to succeed once the lock or the load has gone, so it is retried, never parked.
 */
export function isDatabaseTimeout(error: unknown): boolean {
  const code = postgresErrorCode(error);
  return code !== undefined && TIMEOUT_CODES.has(code);
}
