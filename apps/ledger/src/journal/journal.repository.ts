import { qualified } from '@payments/database';
import type { Environment } from '@payments/ids';
import type { DataSource, EntityManager } from 'typeorm';
import { merchantAccount, shownBalance, type Posting, type PostingKind } from '../domain';

/** Shards of a hot account's balance (fee revenue, clearing): writers on different shards never wait on each other. */
export const HOT_ACCOUNT_SHARDS = 8;

/** A posting as the journal stores it (balance transactions are read from here). */
export interface StoredPosting {
  id: string;
  kind: PostingKind;
  merchantId: string;
  environment: Environment;
  source: string;
  paymentId: string | null;
  amountCents: bigint;
  feeCents: bigint;
  netCents: bigint;
  description: string | null;
  createdAt: Date;
}

interface PostingRow {
  id: string;
  kind: PostingKind;
  merchant_id: string;
  environment: Environment;
  source: string;
  payment_id: string | null;
  amount_cents: string;
  fee_cents: string;
  net_cents: string;
  description: string | null;
  created_at: Date;
}

function storedPosting(row: PostingRow): StoredPosting {
  return {
    id: row.id,
    kind: row.kind,
    merchantId: row.merchant_id,
    environment: row.environment,
    source: row.source,
    paymentId: row.payment_id,
    amountCents: BigInt(row.amount_cents),
    feeCents: BigInt(row.fee_cents),
    netCents: BigInt(row.net_cents),
    description: row.description,
    createdAt: row.created_at,
  };
}

/** The journal: postings with their entries, and the balances kept current in the same statement. */
export class JournalRepository {
  constructor(
    readonly dataSource: DataSource,
    readonly schema: string,
  ) {}

  table(name: string): string {
    return qualified(this.schema, name);
  }

  /**
   * Writes the posting, its entries and their balance changes in one statement, in the caller's transaction.
   * A posting whose id (or payment, or refund) is already in the journal writes nothing: false. `shard` picks
   * the hot accounts' balance row this writer adds to (e.g. the Kafka partition: one writer per shard).
   */
  async post(manager: EntityManager, posting: Posting, shard: number): Promise<boolean> {
    const hotShard = Math.abs(Math.trunc(shard)) % HOT_ACCOUNT_SHARDS;
    const [row] = (await manager.query(
      `WITH posting AS (
         INSERT INTO ${this.table('postings')}
           (id, kind, merchant_id, environment, source, payment_id, amount_cents, fee_cents, net_cents, event_id, description, occurred_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT DO NOTHING
         RETURNING id),
       entry AS (
         INSERT INTO ${this.table('entries')} (posting_id, account, environment, amount_cents)
         SELECT posting.id, e.account, $4, e.amount_cents
         FROM posting, unnest($13::text[], $14::bigint[]) AS e(account, amount_cents)
         RETURNING account, amount_cents),
       balance AS (
         INSERT INTO ${this.table('balances')} (account, shard, sum_cents)
         SELECT entry.account, s.shard, entry.amount_cents
         FROM entry JOIN unnest($13::text[], $15::smallint[]) AS s(account, shard) USING (account)
         ORDER BY entry.account
         ON CONFLICT (account, shard) DO UPDATE SET sum_cents = ${this.table('balances')}.sum_cents + EXCLUDED.sum_cents
         RETURNING 1)
       SELECT (SELECT count(*) FROM posting)::int AS posted, (SELECT count(*) FROM balance)::int AS balances`,
      [
        posting.id,
        posting.kind,
        posting.merchantId,
        posting.environment,
        posting.source,
        posting.paymentId,
        posting.amountCents,
        posting.feeCents,
        posting.netCents,
        posting.eventId,
        posting.description,
        posting.occurredAt,
        posting.entries.map((e) => e.account.id),
        posting.entries.map((e) => e.amountCents),
        posting.entries.map((e) => (e.account.hot ? hotShard : 0)),
      ],
    )) as Array<{ posted: number }>;
    return row!.posted === 1;
  }

  /** A merchant's available balance in one environment, in cents as shown (0 for a merchant with no posting). */
  async availableCents(merchantId: string, environment: Environment): Promise<bigint> {
    const account = merchantAccount(merchantId, environment);
    const [row] = (await this.dataSource.query(`SELECT coalesce(sum(sum_cents), 0)::text AS sum FROM ${this.table('balances')} WHERE account = $1`, [
      account.id,
    ])) as Array<{ sum: string }>;
    return shownBalance(account, BigInt(row!.sum));
  }

  async findPosting(id: string): Promise<StoredPosting | null> {
    const [row] = (await this.dataSource.query(`SELECT * FROM ${this.table('postings')} WHERE id = $1`, [id])) as PostingRow[];
    return row ? storedPosting(row) : null;
  }

  /**
   * A merchant's postings in one environment, newest first, `limit` of them after (older than) or before (newer
   * than) a cursor posting of the same merchant and environment; one more is read to tell whether there are more.
   */
  async listPostings(query: {
    merchantId: string;
    environment: Environment;
    limit: number;
    startingAfter?: StoredPosting;
    endingBefore?: StoredPosting;
    type?: PostingKind;
    createdGte?: Date;
    createdLt?: Date;
  }): Promise<{ postings: StoredPosting[]; hasMore: boolean }> {
    const where = ['merchant_id = $1', 'environment = $2'];
    const params: unknown[] = [query.merchantId, query.environment];
    const add = (clause: (n: string) => string, ...values: unknown[]) => {
      const placeholders = values.map((value) => {
        params.push(value);
        return `$${params.length}`;
      });
      where.push(clause(placeholders.join(', ')));
    };
    if (query.type) add((p) => `kind = ${p}`, query.type);
    if (query.createdGte) add((p) => `created_at >= ${p}`, query.createdGte);
    if (query.createdLt) add((p) => `created_at < ${p}`, query.createdLt);
    const before = query.endingBefore !== undefined;
    const cursor = query.startingAfter ?? query.endingBefore;
    // The cursor row's own created_at, read in SQL: a JavaScript Date keeps milliseconds, Postgres microseconds.
    if (cursor) add((p) => `(created_at, id) ${before ? '>' : '<'} (SELECT created_at, id FROM ${this.table('postings')} WHERE id = ${p})`, cursor.id);
    // Newest first; paging backwards (ending_before) reads oldest first from the cursor, then turns the page round.
    const order = before ? 'created_at ASC, id ASC' : 'created_at DESC, id DESC';
    const rows = (await this.dataSource.query(
      `SELECT * FROM ${this.table('postings')} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${query.limit + 1}`,
      params,
    )) as PostingRow[];
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map(storedPosting);
    return { postings: before ? page.reverse() : page, hasMore };
  }
}
