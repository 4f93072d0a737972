import { executePreparedIn, type SqlStatement } from '@payments/database';
import type { Environment } from '@payments/ids';
import { randomInt } from 'node:crypto';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { shownBalance, walletAccount, walletCovers, type Posting, type PostingKind, type WalletPaymentOutcome } from '../domain';
import type { JournalRepository } from '../journal/journal.repository';

/** A wallet payment's recorded answer, as the first `wallets.pay` of its payment id gave it. */
export interface WalletPaymentAnswer {
  paymentId: string;
  walletId: string;
  environment: Environment;
  merchantId: string;
  source: string;
  amountCents: bigint;
  outcome: WalletPaymentOutcome;
  postingId: string | null;
  balanceCents: bigint;
}

interface AnswerRow {
  payment_id: string;
  wallet_id: string;
  environment: Environment;
  merchant_id: string;
  source: string;
  amount_cents: string;
  outcome: WalletPaymentOutcome;
  posting_id: string | null;
  balance_cents: string;
}

function answerOf(row: AnswerRow): WalletPaymentAnswer {
  return {
    paymentId: row.payment_id,
    walletId: row.wallet_id,
    environment: row.environment,
    merchantId: row.merchant_id,
    source: row.source,
    amountCents: BigInt(row.amount_cents),
    outcome: row.outcome,
    postingId: row.posting_id,
    balanceCents: BigInt(row.balance_cents),
  };
}

/** One line of a wallet's statement: the posting and what it did to the wallet (its wallet entry, as stored). */
export interface WalletStatementLine {
  id: string;
  kind: PostingKind;
  merchantId: string | null;
  source: string;
  paymentId: string | null;
  description: string | null;
  walletEntryCents: bigint;
  createdAt: Date;
}

/** Why a wallet payment could not be written as asked (the handler turns it into the caller's 400). */
export class WalletPaymentConflict extends Error {}

/** The payment id was answered while this request waited for the wallet (see WalletRepository.pay). */
class AnsweredMeanwhile extends Error {}

/**
 * Wallets in the journal: a wallet's balance is its account's one balance row (no row: zero), and a payment locks
 * that row, checks it and posts in one transaction, so concurrent payments queue on the row and never overdraw.
 */
export class WalletRepository {
  constructor(private readonly journal: JournalRepository) {}

  private table(name: string): string {
    return this.journal.table(name);
  }

  /**
   * Pays `posting` (a wallet payment built by bookWalletPayment) if the wallet holds its amount, else records the
   * decline; a payment id answered before gets that answer back, whatever the wallet holds now. `repeat` tells
   * which. A covered payment is one statement (payCovered); anything else is decided under the row's lock.
   */
  async pay(posting: Posting & { walletId: string; paymentId: string; merchantId: string }): Promise<{ answer: WalletPaymentAnswer; repeat: boolean }> {
    const paid = await this.payCovered(posting);
    return paid ? { answer: paid, repeat: false } : this.payLocked(posting);
  }

  /**
   * The common case in one statement, no transaction: the wallet's balance row is debited only where it stays at or
   * above zero and the payment id has no answer as of the statement's start (one UPDATE: a writer that changed the
   * row meanwhile made this one wait, and its condition is checked again on the row as that writer left it), and
   * only then the posting, the other balances, its outbox row and the answer are written. Null when nothing was
   * written (not covered, a wallet never credited, answered before, or a unique key met: answered or booked
   * meanwhile): payLocked then decides under the row's lock, as every case was decided before.
   */
  private async payCovered(posting: Posting & { walletId: string; paymentId: string; merchantId: string }): Promise<WalletPaymentAnswer | null> {
    const account = walletAccount(posting.walletId, posting.environment);
    const entry = posting.entries.find((e) => e.account.id === account.id);
    if (!entry || entry.amountCents <= 0) throw new Error(`wallet payment ${posting.id} does not debit wallet ${posting.walletId}`);
    const gate: SqlStatement = {
      // The wallet is credit-normal: its shown balance is minus its sum, so "stays at or above zero" is sum <= 0.
      text: `UPDATE ${this.table('balances')} SET sum_cents = sum_cents + $1::bigint
         WHERE account = $2 AND shard = 0 AND sum_cents + $1::bigint <= 0
           AND NOT EXISTS (SELECT 1 FROM ${this.table('wallet_payments')} WHERE payment_id = $3)
         RETURNING sum_cents`,
      params: [String(entry.amountCents), account.id, posting.paymentId],
    };
    const answered: SqlStatement = {
      text: `INSERT INTO ${this.table('wallet_payments')} (payment_id, wallet_id, environment, merchant_id, source, amount_cents, outcome, posting_id, balance_cents)
         SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, 'paid', $7::text, -gate.sum_cents FROM gate JOIN posting ON true`,
      params: [posting.paymentId, posting.walletId, posting.environment, posting.merchantId, posting.source, String(posting.amountCents), posting.id],
    };
    let sumAfter: bigint | null;
    try {
      sumAfter = await this.journal.postGated(posting, randomInt(1_000_000), gate, account.id, [answered]);
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
    return sumAfter === null ? null : answerTo(posting, true, shownBalance(account, sumAfter));
  }

  /**
   * The wallet's balance row is locked and the answer read in one statement. That statement's snapshot is taken
   * before it waits for the lock, so a repeat that queued behind the first request of its payment id does not see
   * the answer the first committed meanwhile: its own answer then fails on the recorded one, and the answer as
   * committed, read again, is its answer.
   */
  private async payLocked(posting: Posting & { walletId: string; paymentId: string; merchantId: string }): Promise<{ answer: WalletPaymentAnswer; repeat: boolean }> {
    const account = walletAccount(posting.walletId, posting.environment);
    try {
      return await this.journal.dataSource.transaction(async (manager) => {
        const locked = await this.lockWithAnswer(manager, account.id, posting.paymentId);
        const balance = shownBalance(account, locked.sumCents);
        if (locked.answer) return { answer: sameRequest(locked.answer, posting), repeat: true };

        const paid = walletCovers(balance, posting.amountCents);
        const answer = answerTo(posting, paid, paid ? balance - BigInt(posting.amountCents) : balance);
        const recording = this.recordStatement(answer);
        if (paid) {
          // The posting, its outbox row and the answer in one statement. A wallet is not a Kafka partition's writer:
          // any shard of fee revenue will do. An answer already recorded fails it (wallet_payments_pkey).
          const posted = await this.journal.postNew(manager, [posting], randomInt(1_000_000), [recording]);
          // Rolls the transaction back (the answer and the outbox row went with the statement).
          if (!posted) throw new AnsweredMeanwhile();
          return { answer, repeat: false };
        }
        const recorded = (await manager.query(`${recording.text} ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id`, recording.params as unknown[])) as unknown[];
        if (recorded.length === 0) throw new AnsweredMeanwhile();
        return { answer, repeat: false };
      });
    } catch (error) {
      if (!(error instanceof AnsweredMeanwhile) && !isUniqueViolation(error, 'wallet_payments_pkey')) throw error;
      // Answered by a request of the same payment id that committed while this one waited (or for another wallet:
      // sameRequest refuses it). Nothing of this one was written.
      const prior = await this.answer(this.journal.dataSource.manager, posting.paymentId);
      if (!prior) throw new WalletPaymentConflict(`payment ${posting.paymentId} is already booked`);
      return { answer: sameRequest(prior, posting), repeat: true };
    }
  }

  /**
   * The wallet's balance row locked (made at zero when new; see JournalRepository.lockWallets) with its sum, and
   * the payment id's recorded answer as of the statement's start: one round trip.
   */
  private async lockWithAnswer(manager: EntityManager, accountId: string, paymentId: string): Promise<{ sumCents: bigint; answer: WalletPaymentAnswer | null }> {
    const [row] = (await executePreparedIn(manager, {
      text: `WITH locked AS (
         INSERT INTO ${this.table('balances')} AS b (account, shard, sum_cents) VALUES ($1, 0, 0)
         ON CONFLICT (account, shard) DO UPDATE SET sum_cents = b.sum_cents
         RETURNING sum_cents)
       SELECT l.sum_cents::text AS sum, a.payment_id, a.wallet_id, a.environment, a.merchant_id, a.source, a.amount_cents::text AS amount_cents, a.outcome,
              a.posting_id, a.balance_cents::text AS balance_cents
       FROM locked l LEFT JOIN ${this.table('wallet_payments')} a ON a.payment_id = $2`,
      params: [accountId, paymentId],
    })) as Array<{ sum: string } & { [K in keyof AnswerRow]: AnswerRow[K] | null }>;
    if (!row) throw new Error(`wallet balance row ${accountId} neither made nor locked`);
    return { sumCents: BigInt(row.sum), answer: row.payment_id === null ? null : answerOf(row as unknown as AnswerRow) };
  }

  /**
   * A payment's answer as recorded. With the posting it has no ON CONFLICT: the same payment id answered already
   * (for another wallet: repeats queue on the wallet's lock and read the answer) fails the posting's statement.
   */
  private recordStatement(answer: WalletPaymentAnswer): SqlStatement {
    return {
      text: `INSERT INTO ${this.table('wallet_payments')} (payment_id, wallet_id, environment, merchant_id, source, amount_cents, outcome, posting_id, balance_cents)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      params: [
        answer.paymentId,
        answer.walletId,
        answer.environment,
        answer.merchantId,
        answer.source,
        answer.amountCents.toString(),
        answer.outcome,
        answer.postingId,
        answer.balanceCents.toString(),
      ],
    };
  }

  /** Writes a credit or top-up once; answers whether it was new, the posting as stored and the wallet's balance after. */
  async credit(posting: Posting & { walletId: string }): Promise<{ created: boolean; stored: StoredWalletPosting; balanceCents: bigint }> {
    return this.journal.dataSource.transaction(async (manager) => {
      // The wallet's row first, as every writer of a wallet takes it (see lockWallets).
      await this.journal.lockWallets(manager, [walletAccount(posting.walletId, posting.environment).id]);
      const written = await this.journal.postAll(manager, [posting], randomInt(1_000_000));
      const [stored] = (await manager.query(
        `SELECT id, kind, wallet_id, environment, amount_cents::text AS amount_cents, description FROM ${this.table('postings')} WHERE id = $1`,
        [posting.id],
      )) as Array<{ id: string; kind: PostingKind; wallet_id: string | null; environment: Environment; amount_cents: string; description: string | null }>;
      if (!stored) throw new Error(`posting ${posting.id} is neither written nor stored`);
      return {
        created: written.length === 1,
        stored: { id: stored.id, kind: stored.kind, walletId: stored.wallet_id, environment: stored.environment, amountCents: BigInt(stored.amount_cents), description: stored.description },
        balanceCents: await this.balanceCents(posting.walletId, posting.environment, manager),
      };
    });
  }

  /** The wallet's balance as the customer reads it (0 for a wallet with no posting). */
  async balanceCents(walletId: string, environment: Environment, manager: Pick<EntityManager, 'query'> = this.journal.dataSource): Promise<bigint> {
    const account = walletAccount(walletId, environment);
    const [row] = (await manager.query(`SELECT coalesce(sum(sum_cents), 0)::text AS sum FROM ${this.table('balances')} WHERE account = $1`, [account.id])) as Array<{
      sum: string;
    }>;
    return shownBalance(account, BigInt(row!.sum));
  }

  /** Whether `postingId` is one of this wallet's postings (a statement's cursor must be). */
  async isWalletPosting(walletId: string, environment: Environment, postingId: string): Promise<boolean> {
    const rows = (await this.journal.dataSource.query(`SELECT 1 FROM ${this.table('postings')} WHERE id = $1 AND wallet_id = $2 AND environment = $3`, [
      postingId,
      walletId,
      environment,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** The wallet's postings newest first, `limit` of them after (older than) a cursor posting; one more read to tell whether there are more. */
  async statement(query: { walletId: string; environment: Environment; limit: number; startingAfter?: string }): Promise<{ lines: WalletStatementLine[]; hasMore: boolean }> {
    const params: unknown[] = [query.walletId, query.environment, walletAccount(query.walletId, query.environment).id, query.limit + 1];
    let after = '';
    if (query.startingAfter) {
      params.push(query.startingAfter);
      // The cursor's own created_at, read in SQL (microseconds; a JavaScript Date keeps milliseconds).
      after = `AND (p.created_at, p.id) < (SELECT created_at, id FROM ${this.table('postings')} WHERE id = $5)`;
    }
    const rows = (await this.journal.dataSource.query(
      `SELECT p.id, p.kind, p.merchant_id, p.source, p.payment_id, p.description, p.created_at, e.amount_cents::text AS wallet_cents
       FROM ${this.table('postings')} p
       JOIN ${this.table('entries')} e ON e.posting_id = p.id AND e.account = $3
       WHERE p.wallet_id = $1 AND p.environment = $2 ${after}
       ORDER BY p.created_at DESC, p.id DESC
       LIMIT $4`,
      params,
    )) as Array<{
      id: string;
      kind: PostingKind;
      merchant_id: string | null;
      source: string;
      payment_id: string | null;
      description: string | null;
      created_at: Date;
      wallet_cents: string;
    }>;
    const lines = rows.slice(0, query.limit).map((row) => ({
      id: row.id,
      kind: row.kind,
      merchantId: row.merchant_id,
      source: row.source,
      paymentId: row.payment_id,
      description: row.description,
      walletEntryCents: BigInt(row.wallet_cents),
      createdAt: row.created_at,
    }));
    return { lines, hasMore: rows.length > query.limit };
  }

  private async answer(manager: EntityManager, paymentId: string): Promise<WalletPaymentAnswer | null> {
    const [row] = (await manager.query(
      `SELECT payment_id, wallet_id, environment, merchant_id, source, amount_cents::text AS amount_cents, outcome, posting_id, balance_cents::text AS balance_cents
       FROM ${this.table('wallet_payments')} WHERE payment_id = $1`,
      [paymentId],
    )) as AnswerRow[];
    return row ? answerOf(row) : null;
  }
}

export interface StoredWalletPosting {
  id: string;
  kind: PostingKind;
  walletId: string | null;
  environment: Environment;
  amountCents: bigint;
  description: string | null;
}

/** The answer to `posting`: paid (its posting, the wallet's balance after) or declined (what the wallet holds). */
function answerTo(posting: Posting & { walletId: string; paymentId: string; merchantId: string }, paid: boolean, balanceCents: bigint): WalletPaymentAnswer {
  return {
    paymentId: posting.paymentId,
    walletId: posting.walletId,
    environment: posting.environment,
    merchantId: posting.merchantId,
    source: posting.source,
    amountCents: BigInt(posting.amountCents),
    outcome: paid ? 'paid' : 'insufficient_funds',
    postingId: paid ? posting.id : null,
    balanceCents,
  };
}

/** A repeat must ask for the same payment: the same id for another wallet, merchant, session or amount is refused. */
function sameRequest(answer: WalletPaymentAnswer, posting: Posting & { walletId: string; merchantId: string }): WalletPaymentAnswer {
  const same =
    answer.walletId === posting.walletId &&
    answer.environment === posting.environment &&
    answer.merchantId === posting.merchantId &&
    answer.source === posting.source &&
    answer.amountCents === BigInt(posting.amountCents);
  if (!same) throw new WalletPaymentConflict(`payment ${answer.paymentId} was answered for another wallet payment`);
  return answer;
}

function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (constraint === undefined || driverError.constraint === constraint);
}
