/**
 * Another command changed the stream between this command's read and its write. The command is retried from
 * the read (re-load, re-decide); it never overwrites what the other one decided.
 */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';

  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
  ) {
    super(`stream ${streamId} moved past version ${expectedVersion}`);
  }
}

export function isConcurrencyError(error: unknown): error is ConcurrencyError {
  return error instanceof ConcurrencyError;
}
