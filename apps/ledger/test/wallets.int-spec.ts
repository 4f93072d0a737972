import type { EventEnvelope } from '@payments/events';
import { newWalletId } from '@payments/ids';
import { EventRefused } from '@payments/messaging';
import { computeFee, formatMoney, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import { createTestDatabase, type TestDatabase } from '@payments/testing';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { checkLedger } from '../src/check/ledger-check';
import { createLedger, type Ledger } from '../src/ledger.composition';
import { LEDGER_MIGRATIONS } from '../src/migrations/ledger-schema';

// Customers' wallets on a real Postgres: paid under the wallet's row lock with one answer per payment id, credited
// and topped up once, read as a statement; their payment and refund events booked by the same handler the
// consumer runs (in a transaction of its own, as the consumer's).
describe('customer wallets in the ledger', () => {
  let database: TestDatabase;
  let db: DataSource;
  let ledger: Ledger;
  let merchants = 0;
  let paymentIds = 0;
  const newMerchant = () => `acct_w${(merchants += 1)}_${randomUUID().slice(0, 8)}`;
  const newPaymentId = () => String(9_100_000_000_000_000 + (paymentIds += 1) + Math.floor(Math.random() * 1e9) * 1000);
  const schemas = { ledger: 'ledger', sessions: 'sessions', refunds: 'refunds' };

  /** A wallets.pay body for `amount` at 0.5 %, its fee computed as sessions does. */
  function payBody(walletId: string, merchantId: string, paymentId: string, amount: string, overrides: Record<string, unknown> = {}) {
    const cents = (parseMoneyString(amount) as { cents: number }).cents;
    const fee = computeFee(cents, 50);
    return {
      wallet_id: walletId,
      environment: 'test',
      merchant_id: merchantId,
      payment_id: paymentId,
      source: `pi_test_${paymentId}`,
      method: 'togo',
      amount,
      fee: formatMoney(fee),
      net: formatMoney(cents - fee),
      fee_rate_bps: 50,
      ...overrides,
    };
  }
  const credit = (walletId: string, amount: string, key: string = randomUUID(), description?: string) =>
    ledger.wallets.credit({ wallet_id: walletId, environment: 'test', amount, key, ...(description ? { description } : {}) });
  const balanceOf = async (walletId: string) => (await ledger.wallets.get({ wallet_id: walletId, environment: 'test' })).available;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'no refusal',
      (error: unknown) => (error instanceof ApiError ? { code: error.code, param: error.param, message: error.message } : error),
    );
  const count = async (sql: string, params: unknown[]) => ((await db.query(sql, params)) as [{ n: number }])[0].n;

  function event(type: string, merchantId: string, aggregateId: string, data: Record<string, unknown>): EventEnvelope {
    return {
      id: `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      type,
      schema_version: 1,
      aggregate_type: type.split('.')[0]!,
      aggregate_id: aggregateId,
      sequence: 3,
      merchant_id: merchantId,
      environment: 'test',
      occurred_at: new Date().toISOString(),
      correlation_id: 'req_wallet_test',
      causation_id: null,
      data,
    } as EventEnvelope;
  }
  /** `payment_intent.succeeded` as sessions publishes it for the payment of `body` (a wallets.pay body). */
  const paymentEvent = (body: ReturnType<typeof payBody>, walletId: string | null) =>
    event('payment_intent.succeeded', body.merchant_id, body.source, {
      payment: { id: body.payment_id, method: body.method, amount: body.amount, fee: body.fee, net: body.net, fee_rate_bps: 50, currency: 'USD', ...(walletId ? { wallet_id: walletId } : {}) },
    });
  const refundEvent = (merchantId: string, paymentId: string, amount: string, method = 'togo') => {
    const id = `re_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const now = new Date().toISOString();
    return event('refund.completed', merchantId, id, {
      object: { id, object: 'refund', payment_id: paymentId, amount, currency: 'USD', reason: null, status: 'completed', failure_reason: null, environment: 'test', created_at: now, completed_at: now },
      payment: { id: paymentId, source: 'pi_test_x', method, amount: '100.00', currency: 'USD' },
    });
  };
  /** Books events in one transaction, as the consumer does (handle each, then beforeCommit). */
  const book = (...envelopes: EventEnvelope[]) =>
    db.transaction(async (manager) => {
      for (const envelope of envelopes) await ledger.bookings.handle(envelope, manager, { partition: 0 });
      await ledger.bookings.beforeCommit(manager);
    });

  beforeAll(async () => {
    database = await createTestDatabase('ledger');
    db = await database.dataSource('ledger', LEDGER_MIGRATIONS);
    ledger = createLedger(db, { schema: 'ledger', namespace: 'payments' });
  });

  afterAll(() => database?.drop());

  it('pays from a wallet holding the amount in one posting, answers a repeat the same, and declines for good one it cannot pay', async () => {
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    expect(await credit(wallet, '25.00')).toMatchObject({ created: true, balance: '25.00' });

    const body = payBody(wallet, merchant, newPaymentId(), '10.00');
    const paid = await ledger.wallets.pay(body, 'req_checkout_1');
    expect(paid).toEqual({ outcome: 'paid', posting_id: expect.stringMatching(/^txn_/), balance: '15.00' });
    // A retry (or sessions' re-drive after a crash) gets the first answer, and nothing posts twice.
    expect(await ledger.wallets.pay(body)).toEqual(paid);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [body.payment_id])).toBe(1);
    expect(await balanceOf(wallet)).toBe('15.00');
    expect(await ledger.journal.availableCents(merchant, 'test')).toBe(995n);
    const entries = await db.query(`SELECT account, amount_cents::int AS cents FROM ledger.entries WHERE posting_id = $1 ORDER BY account`, [paid.outcome === 'paid' ? paid.posting_id : '']);
    expect(entries).toEqual([
      { account: `${merchant}:test:available`, cents: -995 },
      { account: 'platform:test:fee_revenue', cents: -5 },
      { account: `${wallet}:test:wallet`, cents: 1000 },
    ]);
    // Its event goes through the outbox like every posting's, naming the wallet.
    const [outbox] = (await db.query(`SELECT payload::jsonb AS payload FROM ledger.outbox WHERE payload::jsonb->>'aggregate_id' = $1`, [
      paid.outcome === 'paid' ? paid.posting_id : '',
    ])) as Array<{ payload: any }>;
    expect(outbox!.payload).toMatchObject({ type: 'ledger.posting.created', merchant_id: merchant, correlation_id: 'req_checkout_1', causation_id: null, data: { kind: 'payment', wallet_id: wallet, amount: '10.00', fee: '0.05', net: '9.95' } });

    const tooMuch = payBody(wallet, merchant, newPaymentId(), '20.00');
    expect(await ledger.wallets.pay(tooMuch)).toEqual({ outcome: 'insufficient_funds', balance: '15.00' });
    // The decline is final for that payment id, even once the wallet could pay it.
    await credit(wallet, '10.00');
    expect(await ledger.wallets.pay(tooMuch)).toEqual({ outcome: 'insufficient_funds', balance: '15.00' });
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [tooMuch.payment_id])).toBe(0);
    // A new payment id (the customer's next try) is paid.
    expect(await ledger.wallets.pay({ ...tooMuch, payment_id: newPaymentId() })).toMatchObject({ outcome: 'paid', balance: '5.00' });

    // The same payment id for another payment is refused, not taken for a repeat.
    expect(await refusal(ledger.wallets.pay({ ...body, ...payBody(wallet, merchant, body.payment_id, '11.00') }))).toMatchObject({ code: 'invalid_request', param: 'payment_id' });
    // An empty wallet (never credited) declines.
    expect(await ledger.wallets.pay(payBody(newWalletId('test'), merchant, newPaymentId(), '1.00'))).toEqual({ outcome: 'insufficient_funds', balance: '0.00' });
  });

  it('refuses a payment whose fee or net disagrees, a wallet of the other environment, and a command off its schema, recording nothing', async () => {
    const wallet = newWalletId('test');
    await credit(wallet, '50.00');
    const merchant = newMerchant();
    const body = payBody(wallet, merchant, newPaymentId(), '10.00');
    expect(await refusal(ledger.wallets.pay({ ...body, fee: '0.10', net: '9.90' }))).toMatchObject({ code: 'invalid_request', param: 'fee' });
    expect(await refusal(ledger.wallets.pay({ ...body, net: '9.00' }))).toMatchObject({ code: 'invalid_request', param: 'fee' });
    expect(await refusal(ledger.wallets.pay({ ...body, fee_rate_bps: 150 }))).toMatchObject({ code: 'invalid_request', param: 'fee' });
    expect(await refusal(ledger.wallets.pay({ ...body, wallet_id: newWalletId('live') }))).toMatchObject({ code: 'invalid_request', param: 'wallet_id' });
    expect(await refusal(ledger.wallets.pay({ ...body, method: 'crypto' }))).toMatchObject({ code: 'invalid_request', param: 'method' });
    expect(await refusal(ledger.wallets.pay({ ...body, amount: '-1.00' }))).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(await count(`SELECT count(*)::int AS n FROM ledger.wallet_payments WHERE payment_id = $1`, [body.payment_id])).toBe(0);
    expect(await balanceOf(wallet)).toBe('50.00');
    // The right amounts are then paid: a refusal records no answer.
    expect(await ledger.wallets.pay(body)).toMatchObject({ outcome: 'paid', balance: '40.00' });
  });

  it('pays a covered payment in one statement without a transaction; a decline, a repeat and an empty wallet take the locked transaction', async () => {
    let transactions = 0;
    const counted = Object.create(db) as DataSource;
    const transaction = db.transaction as (...args: unknown[]) => Promise<unknown>;
    counted.transaction = ((...args: unknown[]) => ((transactions += 1), transaction.apply(db, args))) as DataSource['transaction'];
    const counting = createLedger(counted, { schema: 'ledger', namespace: 'payments' });
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    await credit(wallet, '15.00');
    const before = transactions;

    const body = payBody(wallet, merchant, newPaymentId(), '10.00');
    const paid = await counting.wallets.pay(body, 'req_checkout_2');
    expect(paid).toEqual({ outcome: 'paid', posting_id: expect.stringMatching(/^txn_/), balance: '5.00' });
    expect(transactions).toBe(before);
    // All of it written: the posting, its three entries, the balances, its outbox row and the answer.
    expect(await count(`SELECT count(*)::int AS n FROM ledger.entries e JOIN ledger.postings p ON p.id = e.posting_id WHERE p.payment_id = $1`, [body.payment_id])).toBe(3);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.outbox WHERE payload::jsonb->>'aggregate_id' = $1`, [paid.outcome === 'paid' ? paid.posting_id : ''])).toBe(1);
    expect(await db.query(`SELECT outcome, posting_id, balance_cents::int AS balance FROM ledger.wallet_payments WHERE payment_id = $1`, [body.payment_id])).toEqual([
      { outcome: 'paid', posting_id: paid.outcome === 'paid' ? paid.posting_id : '', balance: 500 },
    ]);
    expect(await balanceOf(wallet)).toBe('5.00');
    expect(await ledger.journal.availableCents(merchant, 'test')).toBe(995n);

    // The same payment id again, though the wallet could pay it twice over: its answer, no second posting.
    await credit(wallet, '100.00');
    expect(await counting.wallets.pay(body)).toEqual(paid);
    expect(transactions).toBe(before + 1);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [body.payment_id])).toBe(1);
    // Not covered: nothing of the one statement is left, the decline is recorded under the lock.
    const tooMuch = payBody(wallet, merchant, newPaymentId(), '200.00');
    expect(await counting.wallets.pay(tooMuch)).toEqual({ outcome: 'insufficient_funds', balance: '105.00' });
    expect(transactions).toBe(before + 2);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [tooMuch.payment_id])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.outbox WHERE payload::jsonb->'data'->>'payment_id' = $1`, [tooMuch.payment_id])).toBe(0);
    expect(await counting.wallets.pay(payBody(newWalletId('test'), merchant, newPaymentId(), '1.00'))).toEqual({ outcome: 'insufficient_funds', balance: '0.00' });
    expect(await balanceOf(wallet)).toBe('105.00');
    expect(await checkLedger(db, schemas, merchant, { journalOnly: true })).toMatchObject({ ok: true, findings: [] });
  });

  it('never overdraws: 50 concurrent payments on a wallet holding 10 payments pay exactly 10, down to 0.00', async () => {
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    await credit(wallet, '70.00');
    await ledger.wallets.topUp({ wallet_id: wallet, environment: 'test', amount: '30.00', top_up_id: randomUUID().replace(/-/g, '') });
    const bodies = Array.from({ length: 50 }, () => payBody(wallet, merchant, newPaymentId(), '10.00'));
    const answers = await Promise.all(bodies.map((body) => ledger.wallets.pay(body)));
    const paid = answers.filter((a) => a.outcome === 'paid');
    expect(paid).toHaveLength(10);
    expect(answers.filter((a) => a.outcome === 'insufficient_funds')).toHaveLength(40);
    // Each payment saw the one before it: balances after each are 90.00 down to 0.00, each once.
    expect(paid.map((a) => a.balance).sort((a, b) => Number(b) - Number(a))).toEqual(['90.00', '80.00', '70.00', '60.00', '50.00', '40.00', '30.00', '20.00', '10.00', '0.00']);
    expect(await balanceOf(wallet)).toBe('0.00');
    expect(await db.query(`SELECT shard, sum_cents::int AS sum FROM ledger.balances WHERE account = $1`, [`${wallet}:test:wallet`])).toEqual([{ shard: 0, sum: 0 }]);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE wallet_id = $1 AND kind = 'payment'`, [wallet])).toBe(10);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.wallet_payments WHERE wallet_id = $1`, [wallet])).toBe(50);
    expect(await ledger.journal.availableCents(merchant, 'test')).toBe(10n * 995n);
    // The shop's credit spread over the commands' 64 shards (not the consumers' 8: a payment holds its shard until
    // its commit's flush), its balance their sum. Ten draws all below 8: one chance in a billion.
    const shards = (await db.query(`SELECT shard FROM ledger.balances WHERE account = $1`, [`${merchant}:test:available`])) as Array<{ shard: number }>;
    expect(Math.max(...shards.map((r) => r.shard))).toBeGreaterThanOrEqual(8);
    // The wallet's running balance, posting by posting, never went below zero.
    const history = (await db.query(
      `SELECT -sum(e.amount_cents) OVER (ORDER BY p.created_at, p.id) AS running FROM ledger.entries e JOIN ledger.postings p ON p.id = e.posting_id WHERE e.account = $1`,
      [`${wallet}:test:wallet`],
    )) as Array<{ running: string }>;
    expect(history).toHaveLength(12);
    expect(history.every((row) => BigInt(row.running) >= 0n)).toBe(true);
  });

  it('a repeat that queued on the wallet behind the first request of its payment id gets the first one\'s answer (paid or declined), never a second posting', async () => {
    // The wallet's row held by another transaction, so both requests of one payment id wait on it: the second's
    // statement began before the first recorded its answer, and must answer from it all the same.
    const raced = async (walletCredit: string, amount: string) => {
      const wallet = newWalletId('test');
      const merchant = newMerchant();
      await credit(wallet, walletCredit);
      const body = payBody(wallet, merchant, newPaymentId(), amount);
      const holder = db.createQueryRunner();
      await holder.connect();
      try {
        await holder.startTransaction();
        await holder.query(`SELECT 1 FROM ledger.balances WHERE account = $1 FOR UPDATE`, [`${wallet}:test:wallet`]);
        const answers = [ledger.wallets.pay(body), ledger.wallets.pay(body)];
        const waiting = async () =>
          count(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%wallet_payments%'`, []);
        for (let i = 0; i < 100 && (await waiting()) < 2; i += 1) await new Promise((r) => setTimeout(r, 20));
        expect(await waiting()).toBe(2);
        await holder.commitTransaction();
        return { wallet, body, answers: await Promise.all(answers) };
      } finally {
        await holder.release();
      }
    };

    const paid = await raced('30.00', '20.00');
    expect(paid.answers[0]).toEqual(paid.answers[1]);
    expect(paid.answers[0]).toMatchObject({ outcome: 'paid', balance: '10.00' });
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [paid.body.payment_id])).toBe(1);
    expect(await balanceOf(paid.wallet)).toBe('10.00');

    const declined = await raced('5.00', '20.00');
    expect(declined.answers[0]).toEqual(declined.answers[1]);
    expect(declined.answers[0]).toMatchObject({ outcome: 'insufficient_funds', balance: '5.00' });
    expect(await count(`SELECT count(*)::int AS n FROM ledger.wallet_payments WHERE payment_id = $1`, [declined.body.payment_id])).toBe(1);
    expect(await balanceOf(declined.wallet)).toBe('5.00');
  });

  it('credits once per key; the same key for another credit is refused', async () => {
    const wallet = newWalletId('test');
    const first = await credit(wallet, '5.00', 'goodwill-1', 'Sorry for the wait');
    expect(first).toEqual({ posting_id: expect.stringMatching(/^txn_/), created: true, balance: '5.00' });
    expect(await credit(wallet, '5.00', 'goodwill-1', 'Sorry for the wait')).toEqual({ ...first, created: false });
    expect(await refusal(credit(wallet, '6.00', 'goodwill-1', 'Sorry for the wait'))).toMatchObject({ code: 'invalid_request', param: 'key', message: expect.stringContaining('use a new key') });
    expect(await refusal(credit(wallet, '5.00', 'goodwill-1', 'Another reason'))).toMatchObject({ code: 'invalid_request', param: 'key' });
    expect(await balanceOf(wallet)).toBe('5.00');
    // From wallet_funding, with no merchant: its event is the platform's.
    expect(await db.query(`SELECT account, amount_cents::int AS cents FROM ledger.entries WHERE posting_id = $1 ORDER BY account`, [first.posting_id])).toEqual([
      { account: 'platform:test:wallet_funding', cents: 500 },
      { account: `${wallet}:test:wallet`, cents: -500 },
    ]);
    const [outbox] = (await db.query(`SELECT payload::jsonb AS payload FROM ledger.outbox WHERE payload::jsonb->>'aggregate_id' = $1`, [first.posting_id])) as Array<{ payload: any }>;
    expect(outbox!.payload).toMatchObject({ merchant_id: 'platform', data: { kind: 'wallet_credit', merchant_id: null, wallet_id: wallet, amount: '5.00', net: '0.00' } });
    // The same key on another wallet is another credit.
    expect(await credit(newWalletId('test'), '6.00', 'goodwill-1')).toMatchObject({ created: true, balance: '6.00' });
  });

  it('credits a top-up once, from clearing; the same top-up for another wallet or amount is refused', async () => {
    const wallet = newWalletId('test');
    const topUpId = randomUUID().replace(/-/g, '');
    const topUp = (walletId: string, amount: string) => ledger.wallets.topUp({ wallet_id: walletId, environment: 'test', amount, top_up_id: topUpId });
    const first = await topUp(wallet, '20.00');
    expect(first).toMatchObject({ created: true, balance: '20.00' });
    expect(await topUp(wallet, '20.00')).toEqual({ ...first, created: false });
    expect(await refusal(topUp(wallet, '21.00'))).toMatchObject({ code: 'invalid_request', param: 'top_up_id' });
    expect(await refusal(topUp(newWalletId('test'), '20.00'))).toMatchObject({ code: 'invalid_request', param: 'top_up_id' });
    expect(await balanceOf(wallet)).toBe('20.00');
    expect(await db.query(`SELECT account FROM ledger.entries WHERE posting_id = $1 AND amount_cents > 0`, [first.posting_id])).toEqual([{ account: 'platform:test:clearing' }]);
  });

  it("lists a wallet's statement newest first, paged, money in positive; another wallet's cursor is refused", async () => {
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    const topUpId = randomUUID().replace(/-/g, '');
    await credit(wallet, '50.00', 'welcome', 'Welcome credit');
    await ledger.wallets.topUp({ wallet_id: wallet, environment: 'test', amount: '20.00', top_up_id: topUpId });
    const body = payBody(wallet, merchant, newPaymentId(), '10.00');
    await ledger.wallets.pay(body);
    await book(paymentEvent(body, wallet));
    const refund = refundEvent(merchant, body.payment_id, '4.00');
    await book(refund);
    expect(await balanceOf(wallet)).toBe('64.00');

    const list = (extra: Record<string, unknown> = {}) => ledger.wallets.list({ wallet_id: wallet, environment: 'test', limit: 2, ...extra });
    const first = await list();
    expect(first.has_more).toBe(true);
    expect(first.data).toEqual([
      expect.objectContaining({ object: 'wallet_transaction', type: 'refund', amount: '4.00', merchant_id: merchant, source: refund.aggregate_id, payment_id: body.payment_id, currency: 'USD' }),
      expect.objectContaining({ type: 'payment', amount: '-10.00', merchant_id: merchant, source: body.source, payment_id: body.payment_id }),
    ]);
    const second = await list({ starting_after: first.data[1]!.id });
    expect(second).toEqual({
      object: 'list',
      has_more: false,
      data: [
        { id: expect.any(String), object: 'wallet_transaction', type: 'top_up', amount: '20.00', currency: 'USD', merchant_id: null, source: topUpId, payment_id: null, description: null, created_at: expect.any(String) },
        { id: expect.any(String), object: 'wallet_transaction', type: 'credit', amount: '50.00', currency: 'USD', merchant_id: null, source: null, payment_id: null, description: 'Welcome credit', created_at: expect.any(String) },
      ],
    });
    const other = newWalletId('test');
    await credit(other, '1.00');
    expect(await refusal(ledger.wallets.list({ wallet_id: other, environment: 'test', limit: 10, starting_after: first.data[0]!.id }))).toMatchObject({
      code: 'invalid_request',
      param: 'starting_after',
    });
    expect((await ledger.wallets.list({ wallet_id: other, environment: 'test', limit: 10 })).data.map((t) => t.amount)).toEqual(['1.00']);
    expect(await ledger.wallets.list({ wallet_id: newWalletId('test'), environment: 'test', limit: 10 })).toEqual({ object: 'list', data: [], has_more: false });

    // The merchant's balance transactions: the payment and the refund like any other, never the wallet's credits.
    const merchantList = await ledger.balances.listBalanceTransactions({ merchant_id: merchant, environment: 'test', limit: 10 });
    expect(merchantList.data.map((t) => [t.type, t.amount, t.net])).toEqual([
      ['refund', '-4.00', '-4.00'],
      ['payment', '10.00', '9.95'],
    ]);
  });

  it("a wallet payment's event records the session's success and books nothing more; one without its wallet debit is refused; one without a wallet books from clearing", async () => {
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    await credit(wallet, '30.00');
    const body = payBody(wallet, merchant, newPaymentId(), '20.00');
    const paid = await ledger.wallets.pay(body);
    const succeeded = paymentEvent(body, wallet);
    await book(succeeded);
    await book(succeeded);
    expect(await db.query(`SELECT payment_id, wallet_id, merchant_id, source, event_id FROM ledger.wallet_payment_sessions WHERE payment_id = $1`, [body.payment_id])).toEqual([
      { payment_id: body.payment_id, wallet_id: wallet, merchant_id: merchant, source: body.source, event_id: succeeded.id },
    ]);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id = $1`, [body.payment_id])).toBe(1);
    expect(await ledger.journal.availableCents(merchant, 'test')).toBe(1990n);
    expect(paid.outcome).toBe('paid');

    // Said to be paid from a wallet the ledger never debited (or for other amounts, or another wallet): refused, nothing booked.
    const undebited = payBody(wallet, merchant, newPaymentId(), '5.00');
    await expect(book(paymentEvent(undebited, wallet))).rejects.toThrow(EventRefused);
    await expect(book(paymentEvent(undebited, wallet))).rejects.toThrow(/^wallet_not_debited: payment \d+/);
    await expect(book(paymentEvent({ ...body, payment_id: body.payment_id }, newWalletId('test')))).rejects.toThrow(/wallet_not_debited/);
    await expect(book(paymentEvent({ ...body, ...payBody(wallet, merchant, body.payment_id, '21.00'), source: body.source }, wallet))).rejects.toThrow(/wallet_not_debited/);
    // In a transaction with other events, the refusal rolls them all back (the consumer then handles them one by one).
    const other = payBody(wallet, merchant, newPaymentId(), '3.00', { method: 'crypto', fee: '0.05', net: '2.95', fee_rate_bps: 150 });
    await expect(book(paymentEvent(other, null), paymentEvent(undebited, wallet))).rejects.toThrow(EventRefused);
    expect(await count(`SELECT count(*)::int AS n FROM ledger.postings WHERE payment_id IN ($1, $2)`, [undebited.payment_id, other.payment_id])).toBe(0);

    // Test mode's sandbox pays togo without a wallet: booked from clearing as before.
    const sandbox = payBody(wallet, merchant, newPaymentId(), '8.00');
    await book(paymentEvent(sandbox, null));
    expect(await db.query(`SELECT e.account, e.amount_cents::int AS cents, p.wallet_id FROM ledger.entries e JOIN ledger.postings p ON p.id = e.posting_id WHERE p.payment_id = $1 AND e.amount_cents > 0`, [sandbox.payment_id])).toEqual([
      { account: 'platform:test:clearing', cents: 800, wallet_id: null },
    ]);
    expect(await balanceOf(wallet)).toBe('10.00');
  });

  it("books a wallet payment's refund back to that wallet and a card payment's to clearing, in one transaction", async () => {
    const wallet = newWalletId('test');
    const merchant = newMerchant();
    await credit(wallet, '40.00');
    const body = payBody(wallet, merchant, newPaymentId(), '40.00');
    await ledger.wallets.pay(body);
    expect(await balanceOf(wallet)).toBe('0.00');
    const card = payBody(wallet, merchant, newPaymentId(), '10.00');
    await book(paymentEvent(body, wallet), paymentEvent(card, null));

    const walletRefund = refundEvent(merchant, body.payment_id, '15.50');
    const cardRefund = refundEvent(merchant, card.payment_id, '2.00');
    await book(walletRefund, cardRefund);
    expect(await balanceOf(wallet)).toBe('15.50');
    const refunds = (await db.query(
      `SELECT p.source, p.wallet_id, e.account, e.amount_cents::int AS cents FROM ledger.postings p JOIN ledger.entries e ON e.posting_id = p.id
       WHERE p.kind = 'refund' AND p.merchant_id = $1 AND e.amount_cents < 0 ORDER BY e.amount_cents`,
      [merchant],
    )) as unknown[];
    expect(refunds).toEqual([
      { source: walletRefund.aggregate_id, wallet_id: wallet, account: `${wallet}:test:wallet`, cents: -1550 },
      { source: cardRefund.aggregate_id, wallet_id: null, account: 'platform:test:clearing', cents: -200 },
    ]);
    // Delivered again: nothing more.
    await book(walletRefund);
    expect(await balanceOf(wallet)).toBe('15.50');
    expect(await ledger.journal.availableCents(merchant, 'test')).toBe(3980n + 995n - 1550n - 200n);
  });

  it('ledger check is clean on wallets, and finds each wallet defect', async () => {
    // A database of its own: the defects written here would break the whole-journal checks of the others.
    const own = await createTestDatabase('ledger');
    try {
      const ownDb = await own.dataSource('ledger', LEDGER_MIGRATIONS);
      const ownLedger = createLedger(ownDb, { schema: 'ledger', namespace: 'payments' });
      const check = (walletGraceSeconds?: number) => checkLedger(ownDb, schemas, null, { journalOnly: true, walletGraceSeconds });
      const broken = async (walletGraceSeconds?: number) => (await check(walletGraceSeconds)).findings.map((f) => f.invariant);
      const wallet = newWalletId('test');
      const merchant = newMerchant();
      await ownLedger.wallets.credit({ wallet_id: wallet, environment: 'test', amount: '30.00', key: 'k' });
      await ownLedger.wallets.topUp({ wallet_id: wallet, environment: 'test', amount: '5.00', top_up_id: 'att1' });
      const body = payBody(wallet, merchant, newPaymentId(), '20.00');
      await ownLedger.wallets.pay(body);
      await ownLedger.wallets.pay(payBody(wallet, merchant, newPaymentId(), '99.00'));
      // Whether its session succeeded is sessions' data: not a journal-only finding (compareWithOwners).
      expect(await check()).toMatchObject({ ok: true, findings: [] });
      expect(await broken(0)).toEqual([]);
      await ownDb.transaction(async (manager) => {
        await ownLedger.bookings.handle(paymentEvent(body, wallet), manager, { partition: 0 });
        await ownLedger.bookings.beforeCommit(manager);
      });
      await ownDb.transaction(async (manager) => {
        await ownLedger.bookings.handle(refundEvent(merchant, body.payment_id, '1.00'), manager, { partition: 0 });
        await ownLedger.bookings.beforeCommit(manager);
      });
      expect(await check(0)).toMatchObject({ ok: true, findings: [] });

      // A session recorded as paid from a wallet with no debit behind it.
      await ownDb.query(
        `INSERT INTO ledger.wallet_payment_sessions (payment_id, wallet_id, environment, merchant_id, source, event_id) VALUES ($1, $2, 'test', $3, 'pi_test_forged', 'evt_forged')`,
        [newPaymentId(), wallet, merchant],
      );
      expect(await broken(0)).toEqual(['every session that succeeded paid from a wallet has its wallet debit']);

      // A stored wallet balance that differs from its entries (balances are not history: forged here).
      await ownDb.query(`UPDATE ledger.balances SET sum_cents = sum_cents + 1 WHERE account = $1`, [`${wallet}:test:wallet`]);
      expect(await broken(0)).toEqual(
        expect.arrayContaining(['each stored balance equals the sum of its account entries', 'every wallet balance equals the sum of its entries and is never negative']),
      );
      await ownDb.query(`UPDATE ledger.balances SET sum_cents = sum_cents - 1 WHERE account = $1`, [`${wallet}:test:wallet`]);
      // The database itself refuses a stored wallet balance below zero.
      await expect(ownDb.query(`UPDATE ledger.balances SET sum_cents = 1 WHERE account = $1`, [`${wallet}:test:wallet`])).rejects.toThrow(/would go below zero/);

      // Written by hand past the repository: a posting that debits a wallet holding nothing (never below zero, broken),
      // on a posting that does not name the wallet; and a wallet payment posting that debits no wallet.
      const empty = newWalletId('test');
      await ownDb.query(
        `WITH posting AS (
           INSERT INTO ledger.postings (id, kind, merchant_id, environment, source, amount_cents, fee_cents, net_cents, occurred_at)
           VALUES ('txn_overdraw', 'adjustment', $1, 'test', 'k', 100, 0, 0, now()) RETURNING id)
         INSERT INTO ledger.entries (posting_id, account, environment, amount_cents) VALUES ('txn_overdraw', $2, 'test', 100), ('txn_overdraw', 'platform:test:adjustments', 'test', -100)`,
        [merchant, `${empty}:test:wallet`],
      );
      const undebited = newPaymentId();
      await ownDb.query(
        `WITH posting AS (
           INSERT INTO ledger.postings (id, kind, merchant_id, environment, source, payment_id, wallet_id, amount_cents, fee_cents, net_cents, occurred_at)
           VALUES ('txn_nodebit', 'payment', $1, 'test', 'pi_test_nodebit', $2, $3, 100, 0, 100, now()) RETURNING id)
         INSERT INTO ledger.entries (posting_id, account, environment, amount_cents) VALUES ('txn_nodebit', 'platform:test:clearing', 'test', 100), ('txn_nodebit', $4, 'test', -100)`,
        [merchant, undebited, wallet, `${merchant}:test:available`],
      );
      const report = await check(0);
      expect(report.ok).toBe(false);
      expect(report.findings.map((f) => f.invariant)).toEqual(
        expect.arrayContaining([
          'every wallet balance equals the sum of its entries and is never negative',
          'no wallet ever went below zero',
          'every wallet entry is on a posting of that wallet',
          'every wallet payment posting has exactly one wallet entry: a debit of its amount on its own wallet',
          'every wallet payment answered paid has its posting, and every wallet payment posting its answer',
          'every session that succeeded paid from a wallet has its wallet debit',
        ]),
      );
      const finding = (name: string) => report.findings.find((f) => f.invariant === name)!;
      expect(finding('no wallet ever went below zero').examples).toEqual([expect.objectContaining({ account: `${empty}:test:wallet`, posting_id: 'txn_overdraw', balance_cents: '-100' })]);
      expect(finding('every wallet payment posting has exactly one wallet entry: a debit of its amount on its own wallet').examples).toEqual([
        expect.objectContaining({ payment_id: undebited, wallet_id: wallet }),
      ]);
      // A merchant's own check leaves wallets' balances to the whole check, and still sees its wallet payments.
      const merchantReport = await checkLedger(ownDb, schemas, merchant, { journalOnly: true, walletGraceSeconds: 0 });
      expect(merchantReport.findings.map((f) => f.invariant)).not.toContain('no wallet ever went below zero');
      expect(merchantReport.findings.map((f) => f.invariant)).toContain('every wallet payment posting has exactly one wallet entry: a debit of its amount on its own wallet');
    } finally {
      await own.drop();
    }
  });

  it("ledger check against sessions' payments: a wallet debit sessions has not recorded yet is on its way within the wallet grace", async () => {
    const own = await createTestDatabase('ledger');
    try {
      const ownDb = await own.dataSource('ledger', LEDGER_MIGRATIONS);
      const ownLedger = createLedger(ownDb, { schema: 'ledger', namespace: 'payments' });
      // The owners' tables as far as the check reads them.
      await ownDb.query(`CREATE SCHEMA sessions`);
      await ownDb.query(`CREATE TABLE sessions.payments (id bigint PRIMARY KEY, merchant_id text, environment text, amount_cents bigint, net_cents bigint, paid_at timestamptz)`);
      await ownDb.query(`CREATE TABLE sessions.provider_attempts (reference text PRIMARY KEY, session_id text, status text, wallet_id text, payment_id text)`);
      await ownDb.query(`CREATE SCHEMA refunds`);
      await ownDb.query(
        `CREATE TABLE refunds.refunds (id text PRIMARY KEY, payment_id bigint, merchant_id text, environment text, amount_cents bigint, status text, created_at timestamptz, completed_at timestamptz)`,
      );
      const check = (walletGraceSeconds?: number) => checkLedger(ownDb, schemas, null, { walletGraceSeconds });
      const broken = async (walletGraceSeconds?: number) => (await check(walletGraceSeconds)).findings.map((f) => f.invariant);
      const wallet = newWalletId('test');
      const merchant = newMerchant();
      await ownLedger.wallets.credit({ wallet_id: wallet, environment: 'test', amount: '10.00', key: 'k' });
      const body = payBody(wallet, merchant, newPaymentId(), '10.00');
      await ownLedger.wallets.pay(body);
      // Debited, sessions not yet committed: on its way.
      expect(await check()).toMatchObject({ ok: true, findings: [], compared: { sessionsPayments: 0 } });
      expect((await check(0)).findings.map((f) => f.invariant)).toEqual([
        'every payment posting matches a payment sessions made',
        'every wallet debit has its session succeeded',
      ]);
      // Sessions records the payment (its attempt names the wallet); the ledger's consumer passes over its event
      // (marked as paid from a wallet): nothing recorded in the ledger, and the check is clean on sessions' data.
      await ownDb.query(`INSERT INTO sessions.payments VALUES ($1, $2, 'test', 1000, 995, now())`, [body.payment_id, merchant]);
      await ownDb.query(`INSERT INTO sessions.provider_attempts VALUES ('att_paid', $1, 'succeeded', $2, $3)`, [body.source, wallet, body.payment_id]);
      expect(await check(0)).toMatchObject({ ok: true, findings: [], compared: { sessionsPayments: 1 } });
      // An event without the mark (written before it) is still verified and recorded by the consumer's handler.
      await ownDb.transaction(async (manager) => {
        await ownLedger.bookings.handle(paymentEvent(body, wallet), manager, { partition: 0 });
        await ownLedger.bookings.beforeCommit(manager);
      });
      expect(await check(0)).toMatchObject({ ok: true, findings: [], compared: { sessionsPayments: 1 } });

      // A session paid from a wallet the ledger never debited (or another wallet, or other amounts): its event is
      // passed over unread, and the check finds it on sessions' data, at once (a debit comes before the session).
      const undebited = newPaymentId();
      await ownDb.query(`INSERT INTO sessions.payments VALUES ($1, $2, 'test', 500, 497, now())`, [undebited, merchant]);
      await ownDb.query(`INSERT INTO sessions.provider_attempts VALUES ('att_undebited', 'pi_test_undebited', 'succeeded', $1, $2)`, [wallet, undebited]);
      expect(await broken()).toEqual(['every payment sessions made from a wallet has its wallet debit']);
      const [finding] = (await check()).findings;
      expect(finding!.examples).toEqual([expect.objectContaining({ payment_id: undebited, wallet_id: wallet, merchant_id: merchant, amount_cents: '500' })]);
      await ownDb.query(`DELETE FROM sessions.payments WHERE id = $1`, [undebited]);
      // The right payment id and amounts on another wallet.
      await ownDb.query(`UPDATE sessions.provider_attempts SET wallet_id = $1 WHERE reference = 'att_paid'`, [newWalletId('test')]);
      expect(await broken()).toEqual(['every payment sessions made from a wallet has its wallet debit']);
      await ownDb.query(`UPDATE sessions.provider_attempts SET wallet_id = $1 WHERE reference = 'att_paid'`, [wallet]);
      // A failed attempt or one with no wallet (a card top-up's) is no wallet payment.
      await ownDb.query(`INSERT INTO sessions.provider_attempts VALUES ('att_failed', 'pi_test_failed', 'failed', $1, $2)`, [wallet, newPaymentId()]);
      expect(await check(0)).toMatchObject({ ok: true, findings: [] });
    } finally {
      await own.drop();
    }
  });
});
