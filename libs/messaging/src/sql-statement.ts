/** One SQL statement with its own `$1..$n` placeholders. */
export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * Several data-modifying statements as one: `WITH s1 AS (…), s2 AS (…) <last>`, placeholders renumbered. Postgres
 * runs every part exactly once, in one snapshot, and a single statement is atomic on its own, so a write that
 * needed BEGIN, n statements and COMMIT (n + 2 round trips, each a socket write and a wake-up on both sides)
 * takes one. If any part fails (e.g. a unique violation), nothing of it is written.
 */
export function combineStatements(statements: readonly SqlStatement[]): SqlStatement {
  if (statements.length === 0) throw new Error('no statements to combine');
  const params: unknown[] = [];
  const parts = statements.map((statement) => {
    const offset = params.length;
    params.push(...statement.params);
    return statement.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = parts.pop()!;
  const text = parts.length === 0 ? last : `WITH ${parts.map((part, i) => `s${i + 1} AS (${part})`).join(', ')} ${last}`;
  return { text, params };
}
