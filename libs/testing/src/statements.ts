import { Client } from 'pg';

/** A statement a pg client of this process sent, with the client (the database session) that sent it. */
export interface IssuedStatement {
  client: Client;
  text: string;
}

export interface StatementRecorder {
  /** In the order sent; a query config's text, whether named (prepared) or not. */
  readonly issued: IssuedStatement[];
  texts(): string[];
  clear(): void;
  /** Stops recording (restores pg's own `query`). */
  stop(): void;
}

/** Records every statement pg clients of this process send until `stop`: a deterministic count of a code path's work. */
export function recordStatements(): StatementRecorder {
  const issued: IssuedStatement[] = [];
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string') issued.push({ client: this, text });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    issued,
    texts: () => issued.map((statement) => statement.text),
    clear: () => void (issued.length = 0),
    stop: () => {
      Client.prototype.query = original;
    },
  };
}
