// The `crypto_addresses` table: the deposit address of each payment intent that chose crypto, and the watcher's
// list of addresses to watch.
import type { SqlStatement } from '@payments/database';
import type { Environment } from '@payments/ids';
import type { DataSource } from 'typeorm';
import type { Clock } from '../shared/clock';

/**
 * How long an address stays on the watch list after its session's expires_at: a transfer sent late, or more sent
 * after the payment, is still seen and recorded (never dropped). Past it, funds sent to the address are found only
 * by the treasury's sweep.
 */
export const WATCH_AFTER_EXPIRY_MS = 7 * 24 * 3600 * 1000;

export interface WatchedAddress {
  readonly environment: Environment;
  readonly sessionId: string;
}

export class CryptoAddresses {
  constructor(private readonly table: (name: string) => string) {}

  /** The next derivation index of `environment` (a gap is harmless: an index lost to a lost race is never reused). */
  async nextIndex(dataSource: DataSource, environment: Environment): Promise<number> {
    const [row] = (await dataSource.query(`SELECT nextval('${this.table(`crypto_address_index_${environment}`)}')::text AS n`)) as Array<{ n: string }>;
    return Number(row!.n);
  }

  /** The address's row, written in the statement that records it on the intent (both or neither). */
  insertStatement(row: { address: string; environment: Environment; sessionId: string; index: number; assignedAt: Date; expiresAt: string }): SqlStatement {
    return {
      text: `INSERT INTO ${this.table('crypto_addresses')} (address, environment, session_id, derivation_index, assigned_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)`,
      params: [row.address.toLowerCase(), row.environment, row.sessionId, row.index, row.assignedAt, row.expiresAt],
    };
  }

  /** The session an address belongs to, if any. */
  async ownerOf(dataSource: DataSource, address: string): Promise<WatchedAddress | null> {
    const [row] = (await dataSource.query(`SELECT environment, session_id FROM ${this.table('crypto_addresses')} WHERE address = $1`, [address.toLowerCase()])) as Array<{
      environment: Environment;
      session_id: string;
    }>;
    return row ? { environment: row.environment, sessionId: row.session_id } : null;
  }
}

/**
 * The watcher's port: the addresses a chain's transfers are looked for, by lower-case address. Every address of the
 * environments the chain serves whose session has not been expired for more than WATCH_AFTER_EXPIRY_MS: waiting,
 * partly paid, paid (extra transfers), expired or cancelled (late ones). A session is at most a day long, so the
 * list holds about eight days of crypto sessions.
 */
export class WatchedAddresses {
  constructor(
    private readonly dataSource: DataSource,
    private readonly table: (name: string) => string,
    private readonly clock: Clock,
    private readonly watchAfterExpiryMs = WATCH_AFTER_EXPIRY_MS,
  ) {}

  async forChain(chain: { readonly environments: readonly Environment[] }): Promise<Map<string, WatchedAddress>> {
    const watched = new Map<string, WatchedAddress>();
    if (chain.environments.length === 0) return watched;
    const since = new Date(this.clock.now().getTime() - this.watchAfterExpiryMs);
    const rows = (await this.dataSource.query(
      `SELECT address, environment, session_id FROM ${this.table('crypto_addresses')} WHERE environment = ANY($1::text[]) AND expires_at > $2`,
      [[...chain.environments], since],
    )) as Array<{ address: string; environment: Environment; session_id: string }>;
    for (const row of rows) watched.set(row.address, { environment: row.environment, sessionId: row.session_id });
    return watched;
  }
}
