import type { SqlStatement } from '@payments/database';

/**
 * The sizes a group of creates written as one statement may have. Each size is a statement text of its own, and
 * each text a prepared statement (parsed and planned once per connection, kept for the connection's life): a few
 * sizes, at most 64 creates, keep those few and small. Between two sizes at most a third of the waiting creates
 * wait for the next group (64 waiting go together; 50 go as 48, the other 2 with whatever arrives meanwhile).
 */
export const CREATE_GROUP_SIZES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64] as const;

/** Postgres' limit of bind parameters in one statement (the protocol counts them in 16 bits). */
export const MAX_BIND_PARAMETERS = 65_535;

/** How many of the oldest waiting creates (each its statements) the next group takes: a size above, within the parameters. */
export function createGroupSize(waiting: ReadonlyArray<readonly SqlStatement[]>): number {
  const most = CREATE_GROUP_SIZES[CREATE_GROUP_SIZES.length - 1]!;
  let fit = 0;
  let params = 0;
  while (fit < waiting.length && fit < most) {
    const next = params + waiting[fit]!.reduce((sum, statement) => sum + statement.params.length, 0);
    if (next > MAX_BIND_PARAMETERS) break;
    params = next;
    fit += 1;
  }
  let size = 1;
  for (const candidate of CREATE_GROUP_SIZES) if (candidate <= fit) size = candidate;
  return size;
}
