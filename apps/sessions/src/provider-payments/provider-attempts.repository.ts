import type { WalletPayer } from '@payments/contracts';
import { executePrepared, executePreparedIn, type SqlStatement } from '@payments/database';
import type { Environment } from '@payments/ids';
import type { DataSource, EntityManager } from 'typeorm';

export type AttemptStatus = 'open' | 'succeeded' | 'failed';

/** The provider name of a wallet payment's attempt (no provider page: the ledger debits the wallet). */
export const WALLET_PROVIDER = 'togo';

/**
 * One payment attempt: at a provider (its reference, ours, is what the provider's callbacks name), from a customer
 * wallet (provider `togo`), or a card top-up of a wallet at a provider (kind `wallet_top_up`, no session).
 */
export interface ProviderAttempt {
  readonly reference: string;
  readonly provider: string;
  readonly sessionKind: 'payment_intent' | 'invoice' | 'wallet_top_up';
  /** The session paid; a top-up's own reference (it pays none). */
  readonly sessionId: string;
  /** Null for a top-up (no merchant). */
  readonly merchantId: string | null;
  readonly environment: Environment;
  readonly method: string;
  readonly amountCents: number;
  /** The provider's page; null for a wallet payment. */
  readonly redirectUrl: string | null;
  readonly status: AttemptStatus;
  readonly failureReason: string | null;
  readonly paymentId: string | null;
  readonly checks: number;
  readonly createdAt: Date;
  /** Wallet payments and top-ups: the wallet debited or credited. */
  readonly walletId: string | null;
  /** Wallet payments: the payer the invoice reports (the wallet's profile, phone masked by the gateway). */
  readonly payer: WalletPayer | null;
  /** Top-ups: the checkout session the customer goes back to. */
  readonly returnTo: string | null;
  /** Wallet payments: the fee sent to the ledger, so a re-drive sends exactly the first command. */
  readonly feeCents: number | null;
  readonly feeRateBps: number | null;
}

/** A session attempt's merchant (a top-up has none, and no session to act on). */
export function merchantOf(attempt: ProviderAttempt): string {
  if (attempt.merchantId === null) throw new Error(`attempt ${attempt.reference} is a ${attempt.sessionKind}, not a session's`);
  return attempt.merchantId;
}

interface AttemptRow {
  reference: string;
  provider: string;
  session_kind: ProviderAttempt['sessionKind'];
  session_id: string;
  merchant_id: string | null;
  environment: Environment;
  method: string;
  amount_cents: string;
  redirect_url: string | null;
  status: AttemptStatus;
  failure_reason: string | null;
  payment_id: string | null;
  checks: number;
  created_at: Date;
  wallet_id: string | null;
  payer: WalletPayer | null;
  return_to: string | null;
  fee_cents: string | null;
  fee_rate_bps: number | null;
}

const COLUMNS =
  'reference, provider, session_kind, session_id, merchant_id, environment, method, amount_cents, redirect_url, status, failure_reason, payment_id, checks, created_at, wallet_id, payer, return_to, fee_cents, fee_rate_bps';

/** What a new attempt is made of (its outcome, checks and time are the table's). */
export type NewAttempt = Omit<ProviderAttempt, 'status' | 'failureReason' | 'checks' | 'createdAt'>;

/** How an attempt ended. */
export interface AttemptOutcome {
  readonly status: 'succeeded' | 'failed';
  readonly failureReason?: string | null;
  readonly paymentId?: string | null;
}

/** The unique index that allows one open attempt per session. */
export const ONE_OPEN_ATTEMPT = 'provider_attempts_one_open';

/** The next check after `checks` checks: after 5 s, doubling, at most 5 min (SQL, over the row's `checks`). */
const BACKOFF = 'make_interval(secs => LEAST(5 * power(2, LEAST(checks, 10)), 300))';

/** A session read with its open attempt in one statement (see ProviderAttemptsRepository.sessionWithOpen). */
export interface SessionWithOpenRow {
  readonly scope: { merchantId: string; environment: 'live' | 'test' };
  /** The stream's events in version order (empty: no stream of that owner). */
  readonly events: ReadonlyArray<{ type: string; data: unknown }>;
  readonly open: ProviderAttempt | null;
}

/** Provider attempts in the sessions schema (SQL only; the rules are in ProviderPayments). */
export class ProviderAttemptsRepository {
  private readonly table: string;
  private readonly sessionWithOpenText: Record<'payment_intent' | 'invoice', string>;

  constructor(schemaTable: (name: string) => string) {
    this.table = schemaTable('provider_attempts');
    // The owner from the read model, the stream as that owner's events (as EventStore.load reads it) and the open
    // attempt: what a click on the checkout reads before it decides, one round trip instead of three.
    const text = (readModel: string) =>
      `SELECT s.merchant_id AS owner_merchant_id, s.environment AS owner_environment,
         (SELECT json_agg(json_build_object('type', e.type, 'data', e.data) ORDER BY e.version) FROM ${schemaTable('events')} e
          WHERE e.stream_id = $1 AND e.metadata->>'merchant_id' = s.merchant_id AND e.metadata->>'environment' = s.environment) AS stream,
         ${COLUMNS.split(', ').map((column) => `a.${column}`).join(', ')}
       FROM ${schemaTable(readModel)} s LEFT JOIN ${this.table} a ON a.session_id = s.id AND a.status = 'open'
       WHERE s.id = $1`;
    this.sessionWithOpenText = { payment_intent: text('payment_intents'), invoice: text('invoices') };
  }

  /** A session's owner, its stream and its open attempt (null: no such session); outside any transaction. */
  async sessionWithOpen(dataSource: DataSource, kind: 'payment_intent' | 'invoice', id: string): Promise<SessionWithOpenRow | null> {
    const [row]: Array<AttemptRow & { owner_merchant_id: string; owner_environment: 'live' | 'test'; stream: Array<{ type: string; data: unknown }> | null }> =
      // Named (the text is the same for every click): parsed and planned once per connection.
      (await executePrepared(dataSource, { text: this.sessionWithOpenText[kind], params: [id] })) as never;
    if (!row) return null;
    return {
      scope: { merchantId: row.owner_merchant_id, environment: row.owner_environment },
      events: row.stream ?? [],
      open: row.reference === null ? null : attemptOf(row),
    };
  }

  /** Records a new open attempt; false when the session has an open one already (another tab won the race). */
  async insertOpen(manager: EntityManager, attempt: NewAttempt, firstCheckAt: Date, lease?: { token: string; until: Date }): Promise<boolean> {
    const { text, params } = this.insertOpenStatement(attempt, firstCheckAt, lease);
    const rows: unknown[] = await manager.query(`${text} ON CONFLICT (session_id) WHERE status = 'open' DO NOTHING RETURNING reference`, params as unknown[]);
    return rows.length === 1;
  }

  /**
   * The insert of a new open attempt as a statement, to be written with the session's change (see
   * SessionCommands.changeWith): when the session has an open attempt already it fails the whole statement with a
   * unique violation of ONE_OPEN_ATTEMPT (isUniqueViolation).
   */
  insertOpenStatement(attempt: NewAttempt, firstCheckAt: Date, lease?: { token: string; until: Date }): SqlStatement {
    // Leased at once when the caller goes on to settle it (a wallet payment): no other tab or check drives it meanwhile.
    return {
      text: `INSERT INTO ${this.table} (reference, provider, session_kind, session_id, merchant_id, environment, method, amount_cents, redirect_url, next_check_at,
                                  payment_id, wallet_id, payer, return_to, fee_cents, fee_rate_bps, verifying_token, verifying_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      params: [
        attempt.reference,
        attempt.provider,
        attempt.sessionKind,
        attempt.sessionId,
        attempt.merchantId,
        attempt.environment,
        attempt.method,
        attempt.amountCents,
        attempt.redirectUrl,
        firstCheckAt,
        attempt.paymentId,
        attempt.walletId,
        attempt.payer === null ? null : JSON.stringify(attempt.payer),
        attempt.returnTo,
        attempt.feeCents,
        attempt.feeRateBps,
        lease?.token ?? null,
        lease?.until ?? null,
      ],
    };
  }

  async find(manager: EntityManager, reference: string): Promise<ProviderAttempt | null> {
    const rows: AttemptRow[] = await manager.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE reference = $1`, [reference]);
    return rows[0] ? attemptOf(rows[0]) : null;
  }

  /** The attempt that made this payment of the merchant in this environment, if a provider made it. */
  async findPaid(manager: EntityManager, scope: { merchantId: string; environment: Environment }, paymentId: string): Promise<ProviderAttempt | null> {
    const rows: AttemptRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM ${this.table} WHERE payment_id = $1 AND merchant_id = $2 AND environment = $3 AND status = 'succeeded' AND provider <> '${WALLET_PROVIDER}'`,
      [paymentId, scope.merchantId, scope.environment],
    );
    return rows[0] ? attemptOf(rows[0]) : null;
  }

  async findOpen(manager: EntityManager, sessionId: string): Promise<ProviderAttempt | null> {
    const rows: AttemptRow[] = await manager.query(`SELECT ${COLUMNS} FROM ${this.table} WHERE session_id = $1 AND status = 'open'`, [sessionId]);
    return rows[0] ? attemptOf(rows[0]) : null;
  }

  /** Closes an open attempt with its outcome (a closed one stays as it was; a payment id chosen at its start is kept). */
  async resolve(manager: EntityManager, reference: string, outcome: AttemptOutcome, now: Date): Promise<void> {
    const { text, params } = this.resolveStatement(reference, outcome, now);
    await manager.query(text, params as unknown[]);
  }

  /** resolve as a statement, to be written with the session's change (safe to write twice: a closed attempt stays). */
  resolveStatement(reference: string, outcome: AttemptOutcome, now: Date): SqlStatement {
    return {
      // An attempt resolved is no longer driven by anyone: its lease ends with it (no separate release).
      text: `UPDATE ${this.table} SET status = $2, failure_reason = $3, payment_id = COALESCE($4, payment_id), resolved_at = $5, verifying_until = NULL, verifying_token = NULL
        WHERE reference = $1 AND status = 'open'`,
      params: [reference, outcome.status, outcome.failureReason ?? null, outcome.paymentId ?? null, now],
    };
  }

  /** Verified again later (the provider had no outcome yet, or could not be reached): after 5 s, doubling, at most 5 min. */
  async postpone(manager: EntityManager, reference: string, now: Date): Promise<void> {
    await manager.query(`UPDATE ${this.table} SET checks = checks + 1, next_check_at = $2::timestamptz + ${BACKOFF} WHERE reference = $1 AND status = 'open'`, [reference, now]);
  }

  /**
   * Open attempts due for a check, each leased to `lease.token` in the same statement, so another instance (or the
   * next run while this one is still verifying) does not take it too, nor does a notification verify it meanwhile.
   * The lease is short and renewed while the verify runs (renewLeases); the verify's end writes the next check
   * (postpone) or the outcome, so an instance that dies mid-verify leaves the attempt due again once its lease
   * lapses, not at its next turn minutes later. The attempts verified least often go first: old attempts the
   * provider never settles cannot hold up a customer who has just paid.
   */
  async claimDue(manager: EntityManager, now: Date, limit: number, lease: { token: string; ms: number }): Promise<ProviderAttempt[]> {
    // Named: every instance asks every few seconds, nearly always for nothing, and unnamed it was planned each time.
    const rows = (await executePreparedIn(manager, {
      text: `UPDATE ${this.table} SET verifying_token = $3, verifying_until = $1::timestamptz + $4::int * interval '1 millisecond'
       WHERE reference IN (SELECT reference FROM ${this.table}
                            WHERE status = 'open' AND next_check_at <= $1 AND (verifying_until IS NULL OR verifying_until <= $1)
                            ORDER BY checks, next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      params: [now, limit, lease.token, lease.ms],
    })) as unknown as AttemptRow[];
    return rows.map(attemptOf);
  }

  /**
   * Leases one open attempt for a verify now (a notification's), like a claimed one. Null
   * when it is closed or another verify holds it; then it is made due at once, for the background check to verify
   * again once that one ends (the notification may say more than the verify in flight saw).
   */
  async claimOne(manager: EntityManager, reference: string, now: Date, lease: { token: string; ms: number }): Promise<ProviderAttempt | null> {
    const [rows]: [AttemptRow[], number] = await manager.query(
      `UPDATE ${this.table} SET verifying_token = $3, verifying_until = $2::timestamptz + $4::int * interval '1 millisecond'
       WHERE reference = $1 AND status = 'open' AND (verifying_until IS NULL OR verifying_until <= $2)
       RETURNING ${COLUMNS}`,
      [reference, now, lease.token, lease.ms],
    );
    if (rows[0]) return attemptOf(rows[0]);
    await manager.query(`UPDATE ${this.table} SET next_check_at = $2 WHERE reference = $1 AND status = 'open'`, [reference, now]);
    return null;
  }

  /** The verifying instance is alive: its leases last `ms` more. */
  async renewLeases(manager: EntityManager, token: string, references: readonly string[], until: Date): Promise<void> {
    await manager.query(`UPDATE ${this.table} SET verifying_until = GREATEST(verifying_until, $3) WHERE reference = ANY($2::text[]) AND verifying_token = $1`, [
      token,
      references,
      until,
    ]);
  }

  /** The verify is over: the attempt may be verified again (at once by a notification, at its next check otherwise). */
  async releaseLease(manager: EntityManager, token: string, reference: string): Promise<void> {
    await manager.query(`UPDATE ${this.table} SET verifying_until = NULL, verifying_token = NULL WHERE reference = $1 AND verifying_token = $2`, [reference, token]);
  }
}

function attemptOf(row: AttemptRow): ProviderAttempt {
  return {
    reference: row.reference,
    provider: row.provider,
    sessionKind: row.session_kind,
    sessionId: row.session_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    method: row.method,
    amountCents: Number(row.amount_cents),
    redirectUrl: row.redirect_url,
    status: row.status,
    failureReason: row.failure_reason,
    paymentId: row.payment_id,
    checks: row.checks,
    createdAt: row.created_at,
    walletId: row.wallet_id,
    payer: row.payer,
    returnTo: row.return_to,
    feeCents: row.fee_cents === null ? null : Number(row.fee_cents),
    feeRateBps: row.fee_rate_bps,
  };
}
