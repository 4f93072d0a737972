import { executePrepared, qualified } from '@payments/database';
import { newWalletId } from '@payments/ids';
import type { DataSource, EntityManager } from 'typeorm';
import type { StoredCode } from './domain/sign-in-codes';
import type { WalletEnvironment } from './domain/wallet-session';

/** A customer wallet's identity and profile (its money is in the ledger). */
export interface CustomerWallet {
  id: string;
  environment: WalletEnvironment;
  email: string;
  name: string | null;
  phone: string | null;
  country: string | null;
  createdAt: Date;
}

export interface WalletProfile {
  name: string | null;
  phone: string | null;
  country: string | null;
}

interface WalletRow {
  id: string;
  environment: WalletEnvironment;
  email: string;
  name: string | null;
  phone: string | null;
  country: string | null;
  created_at: Date;
}

interface CodeRow {
  id: string;
  code_hash: string;
  expires_at: Date;
  failed_attempts: number;
  used_at: Date | null;
  voided_at: Date | null;
}

export interface OpenCode extends StoredCode {
  id: string;
  codeHash: string;
}

const wallet = (row: WalletRow): CustomerWallet => ({
  id: row.id,
  environment: row.environment,
  email: row.email,
  name: row.name,
  phone: row.phone,
  country: row.country,
  createdAt: row.created_at,
});

/** Every query on the gateway's customer_wallets and wallet_sign_in_codes. Addresses arrive normalised. */
export class WalletsRepository {
  private readonly wallets: string;
  private readonly codes: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.wallets = qualified(schema, 'customer_wallets');
    this.codes = qualified(schema, 'wallet_sign_in_codes');
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Serialises everything about one address's codes until the transaction ends (the rate limit counts under it). */
  async lockAddress(environment: WalletEnvironment, email: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 38))`, [`wallet-code:${environment}:${email}`]);
  }

  async codesSentSince(environment: WalletEnvironment, email: string, since: Date, manager: EntityManager): Promise<Date[]> {
    const rows = (await manager.query(`SELECT created_at FROM ${this.codes} WHERE environment = $1 AND email = $2 AND created_at > $3`, [environment, email, since])) as Array<{
      created_at: Date;
    }>;
    return rows.map((row) => row.created_at);
  }

  /** A new code voids the address's earlier ones: only the last code mailed works. */
  async issueCode(environment: WalletEnvironment, email: string, codeHash: string, now: Date, expiresAt: Date, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE ${this.codes} SET voided_at = $3 WHERE environment = $1 AND email = $2 AND used_at IS NULL AND voided_at IS NULL`, [environment, email, now]);
    await manager.query(`INSERT INTO ${this.codes} (environment, email, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      environment,
      email,
      codeHash,
      now,
      expiresAt,
    ]);
  }

  /** The address's last code not used or voided (expired or dead ones included: the caller says why it fails). */
  async openCode(environment: WalletEnvironment, email: string, manager: EntityManager): Promise<OpenCode | null> {
    const rows = (await manager.query(
      `SELECT id, code_hash, expires_at, failed_attempts, used_at, voided_at FROM ${this.codes}
        WHERE environment = $1 AND email = $2 AND used_at IS NULL AND voided_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
      [environment, email],
    )) as CodeRow[];
    const row = rows[0];
    return row
      ? { id: row.id, codeHash: row.code_hash, expiresAt: row.expires_at, failedAttempts: row.failed_attempts, usedAt: row.used_at, voidedAt: row.voided_at }
      : null;
  }

  async countFailedTry(id: string, manager: EntityManager): Promise<number> {
    const [rows] = (await manager.query(`UPDATE ${this.codes} SET failed_attempts = failed_attempts + 1 WHERE id = $1 RETURNING failed_attempts`, [id])) as [
      Array<{ failed_attempts: number }>,
      number,
    ];
    return rows[0]?.failed_attempts ?? 0;
  }

  async useCode(id: string, now: Date, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE ${this.codes} SET used_at = $2 WHERE id = $1`, [id, now]);
  }

  /** The address's wallet in the environment, made on first use (a sign-in, an operator credit). */
  async getOrCreate(environment: WalletEnvironment, email: string, manager: EntityManager = this.dataSource.manager): Promise<CustomerWallet> {
    await manager.query(`INSERT INTO ${this.wallets} (id, environment, email) VALUES ($1, $2, $3) ON CONFLICT (environment, email) DO NOTHING`, [
      newWalletId(environment),
      environment,
      email,
    ]);
    const found = await this.findByEmail(environment, email, manager);
    if (!found) throw new Error(`wallet of ${environment} ${email} not found after insert`);
    return found;
  }

  async findByEmail(environment: WalletEnvironment, email: string, manager: EntityManager = this.dataSource.manager): Promise<CustomerWallet | null> {
    const rows = (await manager.query(`SELECT * FROM ${this.wallets} WHERE environment = $1 AND email = $2`, [environment, email])) as WalletRow[];
    return rows[0] ? wallet(rows[0]) : null;
  }

  /** Read on every pay click and wallet page: a prepared statement, its columns named (a plan outlives a new column). */
  async find(id: string): Promise<CustomerWallet | null> {
    const rows = (await executePrepared(this.dataSource, { text: `SELECT id, environment, email, name, phone, country, created_at FROM ${this.wallets} WHERE id = $1`, params: [id] })) as unknown as WalletRow[];
    return rows[0] ? wallet(rows[0]) : null;
  }

  async updateProfile(id: string, profile: WalletProfile): Promise<void> {
    await this.dataSource.query(`UPDATE ${this.wallets} SET name = $2, phone = $3, country = $4 WHERE id = $1`, [id, profile.name, profile.phone, profile.country]);
  }
}
