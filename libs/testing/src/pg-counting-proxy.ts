import { createServer, connect, type Server, type Socket } from 'node:net';

/** What one service sent Postgres: statements by text, round trips and transactions. */
export interface PgTally {
  statements: Map<string, number>;
  roundTrips: number;
  /** Explicit transactions committed (COMMIT) plus writes that committed by themselves (outside BEGIN … COMMIT). */
  commits: number;
  /** Texts parsed (extended protocol): an unnamed statement at every run, a named one once per connection. */
  parses: Map<string, number>;
}

const WRITE = /^\s*(WITH|INSERT|UPDATE|DELETE)\b/i;

/**
 * A TCP proxy in front of Postgres that reads the frontend protocol (simple and extended queries) and counts what
 * its clients send: a deterministic measure of a code path's statements, round trips and commits, no timing.
 */
export class PgCountingProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  tally: PgTally = { statements: new Map(), roundTrips: 0, commits: 0, parses: new Map() };
  counting = false;

  constructor(private readonly target = { host: '127.0.0.1', port: 5432 }) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.connection(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  reset(): void {
    this.tally = { statements: new Map(), roundTrips: 0, commits: 0, parses: new Map() };
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private connection(client: Socket): void {
    const server = connect(this.target);
    this.sockets.add(client).add(server);
    server.on('data', (chunk) => client.write(chunk));
    server.on('close', () => client.destroy());
    client.on('close', () => server.destroy());
    server.on('error', () => client.destroy());
    client.on('error', () => server.destroy());
    let buffer = Buffer.alloc(0);
    let started = false;
    let inTransaction = false;
    const prepared = new Map<string, string>();
    const portals = new Map<string, string>();
    const cstrings = (body: Buffer): string[] => body.toString('utf8').split('\0');
    const statement = (text: string) => {
      const trimmed = text.trim();
      if (/^(START TRANSACTION|BEGIN)\b/i.test(trimmed)) inTransaction = true;
      else if (/^(COMMIT|ROLLBACK)\b/i.test(trimmed)) {
        if (this.counting && /^COMMIT/i.test(trimmed)) this.tally.commits += 1;
        inTransaction = false;
      } else if (!inTransaction && WRITE.test(trimmed) && this.counting) this.tally.commits += 1;
      if (!this.counting) return;
      const key = trimmed.replace(/\s+/g, ' ');
      this.tally.statements.set(key, (this.tally.statements.get(key) ?? 0) + 1);
    };
    client.on('data', (chunk: Buffer) => {
      server.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          // An SSL or GSS request is answered before the real startup message.
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (buffer.length < 5) return;
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        const type = String.fromCharCode(buffer[0]!);
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          if (this.counting) this.tally.roundTrips += 1;
          statement(cstrings(body)[0]!);
        } else if (type === 'P') {
          const [name, text] = cstrings(body);
          prepared.set(name!, text!);
          if (this.counting) {
            const key = text!.trim().replace(/\s+/g, ' ');
            this.tally.parses.set(key, (this.tally.parses.get(key) ?? 0) + 1);
          }
        } else if (type === 'B') {
          const [portal, name] = cstrings(body);
          portals.set(portal!, name!);
        } else if (type === 'E') {
          const [portal] = cstrings(body);
          statement(prepared.get(portals.get(portal!) ?? '') ?? '?');
        } else if (type === 'S') {
          if (this.counting) this.tally.roundTrips += 1;
        }
      }
    });
  }
}

/** Statements in `a` minus those in `b` (per text), dropping texts that net to zero. */
export function tallyMinus(a: PgTally, b: PgTally): PgTally {
  const statements = new Map<string, number>();
  for (const [text, n] of a.statements) {
    const net = n - (b.statements.get(text) ?? 0);
    if (net !== 0) statements.set(text, net);
  }
  for (const [text, n] of b.statements) if (!a.statements.has(text)) statements.set(text, -n);
  const parses = new Map([...a.parses].map(([text, n]) => [text, n - (b.parses.get(text) ?? 0)] as const).filter(([, n]) => n !== 0));
  return { statements, roundTrips: a.roundTrips - b.roundTrips, commits: a.commits - b.commits, parses };
}
