import { executePrepared, executePreparedIn, placeholdersShifted, qualified, type SqlStatement } from '@payments/database';
import { OutboxWriter } from '@payments/messaging';
import type { Environment } from '@payments/ids';
import type { DataSource, EntityManager } from 'typeorm';
import { merchantAccount, shownBalance, type Posting, type PostingKind } from '../domain';
import { postingCreated } from './posting-events';

/** Consumer runs of up to this many postings run as named statements (postAll); larger ones unnamed. */
const NAMED_RUN_SIZES = 16;
/** Shards of a hot account's balance (fee revenue, clearing): writers on different shards never wait on each other. */
export const HOT_ACCOUNT_SHARDS = 8;
/**
 * Shards a command's postNew picks from (wallet payments, concurrent requests rather than one consumer per
 * partition): a payment holds its shard's rows until its commit's WAL flush, so at 100 payments/s eight shards of
 * fee revenue (and of a busy shop) queued payments behind each other's flushes. Balances are the sum of their shards
 * whatever their number.
 */
export const COMMAND_SHARDS = 64;

/** A posting as the journal stores it (balance transactions are read from here). */
export interface StoredPosting {
  id: string;
  kind: PostingKind;
  /** Null only for a wallet's credit or top-up. */
  merchantId: string | null;
  environment: Environment;
  walletId: string | null;
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
  merchant_id: string | null;
  environment: Environment;
  wallet_id: string | null;
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
    walletId: row.wallet_id,
    source: row.source,
    paymentId: row.payment_id,
    amountCents: BigInt(row.amount_cents),
    feeCents: BigInt(row.fee_cents),
    netCents: BigInt(row.net_cents),
    description: row.description,
    createdAt: row.created_at,
  };
}

/**
 * The journal: postings with their entries, the balances kept current in the same statement, and each new
 * posting's `ledger.posting.created` in the outbox of the same transaction.
 */
export class JournalRepository {
  private readonly outbox: OutboxWriter;

  constructor(
    readonly dataSource: DataSource,
    readonly schema: string,
    /** Where the ledger's events go. */
    private readonly eventsTopic: string,
  ) {
    this.outbox = new OutboxWriter({ schema });
  }

  table(name: string): string {
    return qualified(this.schema, name);
  }

  /**
   * Writes the posting, its entries and their balance changes in one statement, in the caller's transaction.
   * A posting whose id (or payment, or refund) is already in the journal writes nothing: false. `shard` picks
   * the hot accounts' balance row this writer adds to (e.g. the Kafka partition: one writer per shard).
   */
  async post(manager: EntityManager, posting: Posting, shard: number): Promise<boolean> {
    return (await this.postAll(manager, [posting], shard)).length === 1;
  }

  /**
   * Several postings in one statement (a consumer transaction's worth): postings, their entries, and each
   * account's balance change summed, one upsert per balance row. Answers the postings written; those already in
   * the journal (and a repeat of one within `postings`) write nothing.
   */
  async postAll(manager: EntityManager, postings: readonly Posting[], shard: number): Promise<Posting[]> {
    const unique = [...new Map(postings.map((p) => [p.id, p])).values()];
    if (unique.length === 0) return [];
    const statement = this.postingStatement(unique, shard);
    if (unique.length > OutboxWriter.maxEventsPerStatement) {
      const rows = (await manager.query(`${statement.text} SELECT id, (SELECT count(*) FROM balance) AS balances FROM posting`, statement.params as unknown[])) as Array<{ id: string }>;
      const written = new Set(rows.map((row) => row.id));
      const posted = unique.filter((posting) => written.has(posting.id));
      await this.outbox.append(manager, this.eventsTopic, posted.map(postingCreated));
      return posted;
    }
    // The postings' events (only those written) and, when the relay runs in another process, its NOTIFY (sent at
    // commit) in the same statement: one round trip where a consumer's run took three.
    const params = [...statement.params];
    const outboxRows = appended(params, this.outbox.appendStatement(this.eventsTopic, unique.map(postingCreated), { onlyKeysIn: 'posting' }));
    const notify = this.outbox.notifyStatement();
    const notified = notify ? appended(params, { text: ', pg_notify($1, $2)::text AS notified', params: notify.params }) : '';
    const combined = { text: `${statement.text}, outbox_row AS (${outboxRows}) SELECT id, (SELECT count(*) FROM balance) AS balances${notified} FROM posting`, params };
    // The text has a row of outbox values per posting. Runs of the sizes ordinary rates bring are named: unnamed, each
    // was planned at every run (0.4-0.5 ms of Postgres' time). A catch-up's larger runs are rare and stay unnamed, so
    // their many sizes do not use up the pool's names (executePrepared) that other hot statements need.
    const rows = (unique.length <= NAMED_RUN_SIZES ? await executePreparedIn(manager, combined) : await manager.query(combined.text, params)) as Array<{ id: string }>;
    // Woken in process after the commit when the relay runs here (or, had it just stopped, by a NOTIFY of its own).
    if (!notify && rows.length > 0) await this.outbox.committedIn(manager);
    const written = new Set(rows.map((row) => row.id));
    return unique.filter((posting) => written.has(posting.id));
  }

  /**
   * postAll of postings that are all new, in one statement with their outbox rows and `also` (the caller's rows of
   * the same decision): one round trip. False when any of them was in the journal already: the outbox rows and
   * `also` were written regardless, so the caller must roll its transaction back.
   */
  async postNew(manager: EntityManager, postings: readonly Posting[], shard: number, also: readonly SqlStatement[]): Promise<boolean> {
    const unique = [...new Map(postings.map((p) => [p.id, p])).values()];
    if (unique.length === 0 || unique.length !== postings.length) return false;
    const statement = this.postingStatement(unique, shard, COMMAND_SHARDS);
    const params = [...statement.params];
    const more = [this.outbox.appendStatement(this.eventsTopic, unique.map(postingCreated)), ...also].map((extra, i) => `, also${i + 1} AS (${appended(params, extra)})`);
    // Named: its text is the same for every call of one shape (arrays carry the rows), and parsing and planning this
    // many parts cost Postgres more than running them.
    const rows = (await executePreparedIn(manager, { text: `${statement.text}${more.join('')} SELECT id, (SELECT count(*) FROM balance) AS balances FROM posting`, params })) as Array<{
      id: string;
    }>;
    await this.outbox.committedIn(manager);
    return rows.length === unique.length;
  }

  /**
   * One posting written only if `gate` (an UPDATE of `gatedAccount`'s balance row, the CTE `gate`, returning its
   * `sum_cents`) returns a row, all in one statement outside any transaction: the posting, its entries, the balances
   * of its accounts but `gatedAccount` (the gate changed that row itself), its outbox row (with the NOTIFY when the
   * relay runs elsewhere) and `also` (the caller's rows, written when the posting is: their text may read the CTEs
   * `gate` and `posting`). Answers the gated account's sum of entries after the gate when the posting was written;
   * null when it was not (nor anything else). A posting already in the journal fails the statement (unique
   * violation): nothing is written.
   */
  async postGated(posting: Posting, shard: number, gate: SqlStatement, gatedAccount: string, also: readonly SqlStatement[]): Promise<bigint | null> {
    const notify = this.outbox.notifyStatement();
    const parts = [
      gate,
      this.postingStatement([posting], shard, COMMAND_SHARDS, { gatedAccount }),
      this.outbox.appendStatement(this.eventsTopic, [postingCreated(posting)], { onlyIfRowsIn: 'posting' }),
      ...also,
      notify
        ? { text: `${GATED_RESULT}, pg_notify($1, $2)::text AS notified`, params: notify.params }
        : { text: GATED_RESULT, params: [] },
    ];
    const params: unknown[] = [];
    const texts = parts.map((part) => appended(params, part));
    const [gateText, postingText, outboxText, ...rest] = texts;
    const last = rest.pop()!;
    // The posting's clauses start with their own WITH: the gate goes before them, the rest after.
    const text = `WITH gate AS (${gateText}), ${postingText!.replace(/^WITH /, '')}, outbox_row AS (${outboxText})${rest.map((t, i) => `, also${i + 1} AS (${t})`).join('')} ${last}`;
    const [row] = (await executePrepared(this.dataSource, { text, params })) as Array<{ posted: number; gated: string | null }>;
    if (row?.posted !== 1 || row.gated === null) return null;
    await this.outbox.committed(this.dataSource, notify !== undefined);
    return BigInt(row.gated);
  }

  /** The WITH clauses that write postings (CTE `posting`: the ids written), entries and balances; the caller adds the SELECT. */
  private postingStatement(unique: readonly Posting[], shard: number, shardCount = HOT_ACCOUNT_SHARDS, gated?: { gatedAccount: string }): SqlStatement {
    const hotShard = Math.abs(Math.trunc(shard)) % shardCount;
    const column = <T>(value: (posting: Posting) => T) => unique.map(value);
    const entries = unique.flatMap((posting) => posting.entries.map((entry) => ({ posting, entry })));
    // A gated posting's gate changed its account's balance row itself (a row changed twice in one statement is not).
    const shards = new Map(entries.filter(({ entry }) => entry.account.id !== gated?.gatedAccount).map(({ entry }) => [entry.account.id, entry.account.hot ? hotShard : 0]));
    return {
      text: `WITH posting AS (
         INSERT INTO ${this.table('postings')}
           (id, kind, merchant_id, environment, source, payment_id, amount_cents, fee_cents, net_cents, event_id, description, occurred_at, wallet_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[],
                              $10::text[], $11::text[], $12::timestamptz[], $19::text[])
         ${gated ? 'WHERE EXISTS (SELECT 1 FROM gate)' : 'ON CONFLICT DO NOTHING'}
         RETURNING id),
       entry AS (
         INSERT INTO ${this.table('entries')} (posting_id, account, environment, amount_cents)
         SELECT e.posting_id, e.account, e.environment, e.amount_cents
         FROM unnest($13::text[], $14::text[], $15::text[], $16::bigint[]) AS e(posting_id, account, environment, amount_cents)
         JOIN posting ON posting.id = e.posting_id
         RETURNING account, amount_cents),
       change AS (
         SELECT entry.account, s.shard, sum(entry.amount_cents) AS sum_cents
         FROM entry JOIN unnest($17::text[], $18::smallint[]) AS s(account, shard) USING (account)
         GROUP BY entry.account, s.shard),
       balance AS (
         INSERT INTO ${this.table('balances')} (account, shard, sum_cents)
         SELECT account, shard, sum_cents FROM change ORDER BY account, shard
         ON CONFLICT (account, shard) DO UPDATE SET sum_cents = ${this.table('balances')}.sum_cents + EXCLUDED.sum_cents
         RETURNING 1)`,
      params: [
        column((p) => p.id),
        column((p) => p.kind),
        column((p) => p.merchantId),
        column((p) => p.environment),
        column((p) => p.source),
        column((p) => p.paymentId),
        column((p) => p.amountCents),
        column((p) => p.feeCents),
        column((p) => p.netCents),
        column((p) => p.eventId),
        column((p) => p.description),
        column((p) => p.occurredAt),
        entries.map(({ posting }) => posting.id),
        entries.map(({ entry }) => entry.account.id),
        entries.map(({ entry }) => entry.account.environment),
        entries.map(({ entry }) => entry.amountCents),
        [...shards.keys()],
        [...shards.values()],
        column((p) => p.walletId ?? null),
      ],
    };
  }

  /**
   * Locks wallet accounts' balance rows (made first, at zero, where there is none yet), in account order, and answers
   * each one's sum of entries. Every writer of a wallet takes its lock before any other balance row (a payment to
   * check it, a credit, a consumer's refunds), so writers that meet on a wallet queue there and never deadlock.
   */
  async lockWallets(manager: EntityManager, accountIds: readonly string[]): Promise<Map<string, bigint>> {
    const accounts = [...new Set(accountIds)].sort();
    if (accounts.length === 0) return new Map();
    // One round trip: the upsert makes a missing row and locks an existing one (its no-op update waits for a writer
    // holding it, then sees that writer's committed sum, as FOR UPDATE would), rows taken in account order.
    const rows = (await manager.query(
      `INSERT INTO ${this.table('balances')} AS b (account, shard, sum_cents) SELECT account, 0, 0 FROM unnest($1::text[]) AS a(account) ORDER BY account
       ON CONFLICT (account, shard) DO UPDATE SET sum_cents = b.sum_cents
       RETURNING account, sum_cents::text AS sum`,
      [accounts],
    )) as Array<{ account: string; sum: string }>;
    return new Map(rows.map((row) => [row.account, BigInt(row.sum)]));
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
    // The limit is a parameter like every value: spliced into the text, a command's `limit` was SQL.
    params.push(query.limit + 1);
    const rows = (await this.dataSource.query(
      `SELECT * FROM ${this.table('postings')} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${params.length}`,
      params,
    )) as PostingRow[];
    const hasMore = rows.length > query.limit;
    const page = rows.slice(0, query.limit).map(storedPosting);
    return { postings: before ? page.reverse() : page, hasMore };
  }
}

/** What postGated reads back; `balance` is referenced so that its upserts are planned with the rest. */
const GATED_RESULT = 'SELECT (SELECT count(*)::int FROM posting) AS posted, (SELECT sum_cents::text FROM gate) AS gated, (SELECT count(*) FROM balance) AS balances';

/** `statement`'s text with its placeholders moved past `params`, to which its own are appended. */
function appended(params: unknown[], statement: SqlStatement): string {
  const offset = params.length;
  params.push(...statement.params);
  return placeholdersShifted(statement.text, offset);
}
