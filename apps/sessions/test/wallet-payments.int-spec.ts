import { createHmac } from 'node:crypto';
import { validateEnvelope } from '@payments/events';
import { newWalletId } from '@payments/ids';
import { LahzaStandIn, waitFor } from '@payments/testing';
import { codeOf, createHarness, intentCommand, invoiceCommand, type SessionsHarness } from './support/sessions-harness';

// Paying a session from a customer wallet (`togo`) and topping wallets up by card at Lahza, on a real database,
// with the ledger's wallet commands behind their port (an in-process stand-in that answers once per payment id, as
// the ledger does, and can be made unreachable or lose an answer after posting). The same flows against the real
// ledger service are in wallet-ledger.int-spec.ts.
describe('wallet payments and top-ups', () => {
  const secretKey = 'sk_standin_wallet_payments';
  let standIn: LahzaStandIn;
  let h: SessionsHarness;
  const merchant = 'acct_wallet_payments';
  const payer = { name: 'Lina Haddad', email: 'lina@example.com', phone: '+97059•••4567', country: 'PS' };

  const testIntent = (params: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) =>
    h.intents.create(intentCommand(merchant, overrides, params), 'req_wallet');
  const intentOf = (id: string) => h.intents.get({ merchant_id: merchant, environment: id.startsWith('pi_live_') ? 'live' : 'test', id });
  const attemptRows = (sessionId: string) =>
    h.sessions.dataSource.query(
      `SELECT reference, provider, method, status, failure_reason, payment_id, wallet_id FROM ${h.sessions.table('provider_attempts')} WHERE session_id = $1 ORDER BY created_at`,
      [sessionId],
    ) as Promise<Array<{ reference: string; provider: string; method: string; status: string; failure_reason: string | null; payment_id: string | null; wallet_id: string | null }>>;
  /** The attempt is due for the background check now, and no lease holds it. */
  const dueNow = (reference: string) =>
    h.sessions.dataSource.query(
      `UPDATE ${h.sessions.table('provider_attempts')} SET next_check_at = now() - interval '1 second', verifying_until = NULL, verifying_token = NULL WHERE reference = $1`,
      [reference],
    );
  const funded = (amount: string) => {
    const wallet = newWalletId('test');
    h.ledger.credit(wallet, amount);
    return wallet;
  };

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey });
    const lahzaUrl = await standIn.listen();
    // A live install without Lahza's live key: live sessions offer togo only; test keeps every sandbox.
    h = await createHarness({ env: { LAHZA_BASE_URL: lahzaUrl, LAHZA_TEST_SECRET_KEY: secretKey, LAHZA_TIMEOUT_MS: '600' } });
  });

  afterAll(async () => {
    await h.close();
    await standIn.close();
  });

  beforeEach(() => {
    h.ledger.down = false;
    h.ledger.loseAnswers = 0;
    h.ledger.delayMs = 0;
  });

  it('pays an intent from the wallet: succeeded with the payment the ledger posted, its event carrying the method and wallet', async () => {
    const intent = await testIntent({ success_url: 'https://shop.example/thanks' });
    const wallet = funded('100.00');
    // The answer names where the shop wants its customer: the checkout reads nothing else to send them there.
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toEqual({
      id: intent.id,
      outcome: 'succeeded',
      reason: null,
      balance: '26.00',
      success_url: 'https://shop.example/thanks',
    });
    const paid = await intentOf(intent.id);
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'togo', fee: '0.37', net_amount: '73.63' });
    // The ledger was asked with the session's payment id and the fee the session records.
    const posted = h.ledger.payments.get(paid.payment_id!)!.command;
    expect(posted).toEqual({
      wallet_id: wallet,
      environment: 'test',
      merchant_id: merchant,
      payment_id: paid.payment_id,
      source: intent.id,
      method: 'togo',
      amount: '74.00',
      fee: '0.37',
      net: '73.63',
      fee_rate_bps: 50,
    });
    const events = await h.outboxOf(intent.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
    // The published envelope passes the public event schema (wallet_id included).
    for (const event of events) validateEnvelope(JSON.parse(JSON.stringify(event)));
    expect(events.filter((e) => e.type === 'payment_intent.succeeded').map((e) => e.data.payment)).toEqual([
      { id: paid.payment_id, method: 'togo', amount: '74.00', fee: '0.37', fee_rate_bps: 50, net: '73.63', currency: 'USD', wallet_id: wallet },
    ]);
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ provider: 'togo', method: 'togo', status: 'succeeded', payment_id: paid.payment_id, wallet_id: wallet })]);
    // Paid: a second pay is refused, nothing more is asked of the ledger.
    expect(await codeOf(h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer }))).toBe('invalid_state');
    expect(h.ledger.balanceOf(wallet)).toBe('26.00');
  });

  it('pays an invoice from the wallet: method wallet, the payer as the wallet profile gives it', async () => {
    const invoice = await h.invoices.create(invoiceCommand(merchant), 'req_wallet');
    const wallet = funded('74.00');
    expect(await h.walletHandlers.pay({ id: invoice.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'succeeded', balance: '0.00' });
    const paid = await h.invoices.get({ merchant_id: merchant, environment: 'test', id: invoice.id });
    expect(paid).toMatchObject({ status: 'paid', fee: '0.37', net: '73.63' });
    expect(paid.payment).toMatchObject({ method: 'wallet', payer_name: 'Lina Haddad', payer_email: 'lina@example.com', payer_phone: '+97059•••4567', payer_country: 'PS' });
    const event = (await h.outboxOf(invoice.id)).find((e) => e.type === 'invoice.paid')!;
    expect(event.data.payment).toMatchObject({ id: paid.payment!.reference, method: 'wallet', wallet_id: wallet });
    expect(h.ledger.payments.get(paid.payment!.reference)!.command).toMatchObject({ method: 'wallet', source: invoice.id });
  });

  it('declines when the wallet is short; after a credit the same session is paid with a new payment', async () => {
    const intent = await testIntent();
    const wallet = funded('10.00');
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toEqual({ id: intent.id, outcome: 'declined', reason: 'insufficient_funds', balance: '10.00', success_url: null });
    expect(await intentOf(intent.id)).toMatchObject({ status: 'failed', paid: false });
    expect((await h.outboxOf(intent.id)).map((e) => e.type)).toContain('payment_intent.payment_failed');
    h.ledger.credit(wallet, '64.00');
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'succeeded', balance: '0.00' });
    const [declined, paid] = await attemptRows(intent.id);
    expect(declined).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds' });
    expect(paid).toMatchObject({ status: 'succeeded', payment_id: (await intentOf(intent.id)).payment_id });
    // The declined attempt's payment id stays declined at the ledger: the retry is another payment.
    expect(declined!.payment_id).not.toBe(paid!.payment_id);
    expect(h.ledger.payments.get(declined!.payment_id!)!.reply.outcome).toBe('insufficient_funds');

    // An invoice's declined attempt: failed, and it may still be paid.
    const invoice = await h.invoices.create(invoiceCommand(merchant), 'req_wallet');
    expect(await h.walletHandlers.pay({ id: invoice.id, wallet_id: funded('1.00'), payer })).toMatchObject({ outcome: 'declined', reason: 'insufficient_funds' });
    expect((await h.invoices.get({ merchant_id: merchant, environment: 'test', id: invoice.id })).status).toBe('failed');
  });

  it('ten pays at once on one session (double clicks, tabs) make one payment', async () => {
    const intent = await testIntent();
    const wallet = funded('1000.00');
    h.ledger.delayMs = 150;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer }).then((o) => o.outcome, (error: { code: string }) => error.code)),
    );
    // Each click is told the payment's outcome, that it is being completed, or (arriving once it is paid) invalid_state.
    for (const outcome of outcomes) expect(['succeeded', 'pending', 'invalid_state']).toContain(outcome);
    expect(outcomes).toContain('succeeded');
    expect(h.ledger.payments.size).toBeGreaterThan(0);
    const paid = await intentOf(intent.id);
    expect(paid.status).toBe('succeeded');
    expect([...h.ledger.payments.values()].filter((p) => p.command.source === intent.id).map((p) => p.command.payment_id)).toEqual([paid.payment_id]);
    expect(h.ledger.balanceOf(wallet)).toBe('926.00');
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
    expect(await attemptRows(intent.id)).toHaveLength(1);
  });

  it('paid another way while the ledger was asked: the success decided on the session as the begin left it loses the race, and the attempt keeps the money as session_already_paid', async () => {
    const intent = await testIntent();
    const wallet = funded('100.00');
    h.ledger.delayMs = 400;
    const paying = h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer });
    // The attempt and the intent's processing are written together, before the ledger is asked.
    await waitFor(async () => (await intentOf(intent.id)).status === 'processing', 5_000, 'processing', 10);
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ status: 'open', provider: 'togo' })]);
    const simulated = await h.intents.simulate({ merchant_id: merchant, environment: 'test', id: intent.id, result: 'succeeded' }, 'req_simulate');
    expect(await paying).toMatchObject({ outcome: 'succeeded', balance: '26.00' });
    // The session keeps the payment it made first; the wallet's is on the attempt, for an operator to refund.
    expect(await intentOf(intent.id)).toMatchObject({ status: 'succeeded', payment_id: simulated.payment_id });
    const [attempt] = await attemptRows(intent.id);
    expect(attempt).toMatchObject({ status: 'succeeded', failure_reason: 'session_already_paid' });
    expect(h.ledger.payments.get(attempt!.payment_id!)!.reply.outcome).toBe('paid');
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
  });

  it('the ledger posted but its answer was lost: pending, then the background check records it with the same payment id', async () => {
    const intent = await testIntent();
    const wallet = funded('80.00');
    h.ledger.loseAnswers = 1;
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toEqual({ id: intent.id, outcome: 'pending', reason: null, balance: null, success_url: null });
    // Money taken, session not yet succeeded: the attempt is open with the payment id the ledger posted.
    const [attempt] = await attemptRows(intent.id);
    expect(attempt).toMatchObject({ status: 'open' });
    expect(h.ledger.payments.get(attempt!.payment_id!)!.reply.outcome).toBe('paid');
    expect((await intentOf(intent.id)).status).toBe('processing');
    // Another click meanwhile drives the same attempt (the same payment id), never a second debit.
    await dueNow(attempt!.reference);
    expect(await h.providerPayments.checkDue(20)).toBeGreaterThanOrEqual(1);
    const paid = await intentOf(intent.id);
    expect(paid).toMatchObject({ status: 'succeeded', payment_id: attempt!.payment_id, payment_method: 'togo' });
    expect(h.ledger.balanceOf(wallet)).toBe('6.00');
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ status: 'succeeded', payment_id: attempt!.payment_id })]);
  });

  it('the ledger unreachable during the pay: pending, the session processing, and the check completes it once the ledger is back', async () => {
    const intent = await testIntent();
    const wallet = funded('74.00');
    h.ledger.down = true;
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'pending' });
    expect((await intentOf(intent.id)).status).toBe('processing');
    // Still down at the next check: still open, nothing recorded.
    const [attempt] = await attemptRows(intent.id);
    await dueNow(attempt!.reference);
    await h.providerPayments.checkDue(20);
    expect((await attemptRows(intent.id))[0]).toMatchObject({ status: 'open' });
    // A second click while the ledger is down answers pending too, on the same attempt.
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'pending' });
    h.ledger.down = false;
    await dueNow(attempt!.reference);
    await h.providerPayments.checkDue(20);
    expect(await intentOf(intent.id)).toMatchObject({ status: 'succeeded', payment_id: attempt!.payment_id });
    expect(h.ledger.balanceOf(wallet)).toBe('0.00');
    expect(await attemptRows(intent.id)).toHaveLength(1);
  });

  it('an instance dies after the ledger posted, holding the attempt: another one finishes it once the lease lapses, with the same payment id', async () => {
    const intent = await testIntent();
    const wallet = funded('74.00');
    h.ledger.down = true;
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'pending' });
    h.ledger.down = false;
    // What the dead instance left: its lease (renewed no more) and the debit its command made at the ledger.
    const table = h.sessions.table('provider_attempts');
    // TypeORM answers an UPDATE with [rows, count].
    const [[row]] = await h.sessions.dataSource.query(`UPDATE ${table} SET verifying_token = 'dead', verifying_until = now() + interval '1 second', next_check_at = now() - interval '1 second' WHERE session_id = $1 RETURNING reference`, [intent.id]);
    const attempt = (await h.sessions.dataSource.query(`SELECT payment_id FROM ${table} WHERE reference = $1`, [row.reference]))[0] as { payment_id: string };
    const posted = [...h.ledger.payments.values()].find((p) => p.command.payment_id === attempt.payment_id);
    expect(posted).toBeUndefined();
    await h.ledger.pay({ wallet_id: wallet, environment: 'test', merchant_id: merchant, payment_id: attempt.payment_id, source: intent.id, method: 'togo', amount: '74.00', fee: '0.37', net: '73.63', fee_rate_bps: 50 });
    expect(h.ledger.balanceOf(wallet)).toBe('0.00');
    // Held: neither another instance's check nor a click drives it meanwhile.
    const other = await h.instance();
    expect(await other.providerPayments.checkDue(20)).toBe(0);
    expect(await other.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'pending' });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await other.providerPayments.checkDue(20)).toBe(1);
    expect(await intentOf(intent.id)).toMatchObject({ status: 'succeeded', payment_id: attempt.payment_id });
    expect(h.ledger.balanceOf(wallet)).toBe('0.00');
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
  });

  it('refuses an unknown session, a session without togo, a wallet of the other environment and an open card payment', async () => {
    const wallet = funded('100.00');
    expect(await codeOf(h.walletHandlers.pay({ id: 'pi_test_unknown0000000000000000', wallet_id: wallet, payer }))).toBe('not_found');
    const noWallet = await testIntent({ methods: ['lahza', 'crypto'] });
    expect(await codeOf(h.walletHandlers.pay({ id: noWallet.id, wallet_id: wallet, payer }))).toBe('payment_methods_unavailable');
    const intent = await testIntent();
    expect(await codeOf(h.walletHandlers.pay({ id: intent.id, wallet_id: newWalletId('live'), payer }))).toBe('not_found');
    expect(await codeOf(h.walletHandlers.pay({ id: intent.id, wallet_id: 'wal_test_short', payer }))).toBe('invalid_request');
    // The customer went to Lahza first and that transaction is still open there: the wallet waits for it.
    await h.providerPayments.start(intent.id, 'lahza');
    expect(await codeOf(h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer }))).toBe('invalid_state');
    // Lahza ends it unpaid: the wallet may pay.
    const [card] = await attemptRows(intent.id);
    standIn.report(card!.reference, 'reversed');
    expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'succeeded' });
    // And a card payment cannot start beside a succeeded wallet payment.
    expect(await codeOf(h.providerPayments.start(intent.id, 'lahza'))).toBe('invalid_state');
  });

  describe('available_methods', () => {
    it('test sessions list every method; live ones only what is configured (togo here), and asking only for others is refused naming them', async () => {
      expect((await testIntent()).available_methods).toEqual(['togo', 'lahza', 'crypto']);
      const live = await h.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_wallet');
      expect(live.available_methods).toEqual(['togo']);
      const mixed = await h.intents.create(intentCommand(merchant, { environment: 'live' }, { methods: ['lahza', 'togo'] }), 'req_wallet');
      expect(mixed.available_methods).toEqual(['togo']);
      const refused = h.intents.create(intentCommand(merchant, { environment: 'live' }, { methods: ['lahza', 'crypto'] }), 'req_wallet');
      await expect(refused).rejects.toMatchObject({ code: 'payment_methods_unavailable', message: expect.stringContaining('lahza, crypto') });
      // Invoices: the same rule under their names (the service balance is `wallet` there).
      expect((await h.invoices.create(invoiceCommand(merchant, { environment: 'live' }, { methods: ['wallet', 'crypto'] }), 'req_wallet')).status).toBe('pending');
      expect(await codeOf(h.invoices.create(invoiceCommand(merchant, { environment: 'live' }, { methods: ['crypto'] }), 'req_wallet'))).toBe('payment_methods_unavailable');
    });

    it('live sessions list lahza once its live key is configured', async () => {
      const withKey = await createHarness({ env: { LAHZA_BASE_URL: 'http://127.0.0.1:1', LAHZA_LIVE_SECRET_KEY: secretKey } });
      try {
        const live = await withKey.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_wallet');
        expect(live.available_methods).toEqual(['togo', 'lahza']);
      } finally {
        await withKey.close();
      }
    });
  });

  describe('top-ups', () => {
    const start = (wallet: string, amount = '25.00', returnTo?: string) =>
      h.walletHandlers.startTopUp({ wallet_id: wallet, environment: 'test', email: 'lina@example.com', amount, ...(returnTo ? { return_to: returnTo } : {}) });
    const notify = (reference: string) => {
      const body = Buffer.from(JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } }));
      return h.providerPayments.notification('lahza', body, createHmac('sha512', secretKey).update(body).digest('hex'));
    };

    it('opens a Lahza transaction returning to the wallet page; verified, the wallet is credited once even when the return and the notification race', async () => {
      const wallet = newWalletId('test');
      const intent = await testIntent();
      const started = await start(wallet, '25.00', intent.id);
      expect(started.redirect_url).toMatch(/^http/);
      const transaction = standIn.transactions.get(started.reference)!;
      expect(transaction).toMatchObject({ amount: 2500, currency: 'USD', email: 'lina@example.com', callbackUrl: 'https://pay.example.test/wallet/top-ups/return' });
      // Back before paying: nothing verified, nothing credited.
      expect(await h.walletHandlers.confirmTopUp({ reference: started.reference })).toMatchObject({ outcome: 'pending' });
      expect(h.ledger.topUpCalls).toBe(0);
      standIn.complete(started.reference, 'success');
      h.ledger.delayMs = 100;
      const [confirmed, notified] = await Promise.all([h.walletHandlers.confirmTopUp({ reference: started.reference }), notify(started.reference)]);
      await h.providerPayments.idle();
      expect(notified).toEqual({ accepted: true });
      expect(confirmed).toEqual({ reference: started.reference, wallet_id: wallet, environment: 'test', outcome: 'succeeded', amount: '25.00', return_to: intent.id });
      expect(h.ledger.balanceOf(wallet)).toBe('25.00');
      expect([...h.ledger.topUps.values()]).toEqual([{ wallet_id: wallet, environment: 'test', amount: '25.00', top_up_id: started.reference }]);
      expect(await h.walletHandlers.confirmTopUp({ reference: started.reference })).toMatchObject({ outcome: 'succeeded' });
      // A top-up's reference names no session.
      expect(await codeOf(h.providerPayments.confirm(intent.id, started.reference))).toBe('not_found');
    });

    it('a verified top-up the ledger cannot take yet stays open and the background check credits it', async () => {
      const wallet = newWalletId('test');
      const { reference } = await start(wallet, '10.00');
      standIn.complete(reference, 'success');
      h.ledger.down = true;
      expect(await h.walletHandlers.confirmTopUp({ reference })).toMatchObject({ outcome: 'pending' });
      h.ledger.down = false;
      await dueNow(reference);
      await h.providerPayments.checkDue(20);
      expect(h.ledger.balanceOf(wallet)).toBe('10.00');
      expect(await h.walletHandlers.confirmTopUp({ reference })).toMatchObject({ outcome: 'succeeded' });
    });

    it('a transaction Lahza ends unpaid fails the top-up; refusals', async () => {
      const wallet = newWalletId('test');
      const { reference } = await start(wallet);
      standIn.report(reference, 'reversed');
      expect(await h.walletHandlers.confirmTopUp({ reference })).toMatchObject({ outcome: 'failed' });
      expect(h.ledger.balanceOf(wallet)).toBe('0.00');
      expect(await codeOf(h.walletHandlers.confirmTopUp({ reference: 'attUnknown123' }))).toBe('not_found');
      // No live key here: live wallets cannot be topped up by card.
      expect(await codeOf(h.walletHandlers.startTopUp({ wallet_id: newWalletId('live'), environment: 'live', email: 'lina@example.com', amount: '5.00' }))).toBe(
        'payment_methods_unavailable',
      );
      expect(await codeOf(h.walletHandlers.startTopUp({ wallet_id: newWalletId('live'), environment: 'test', email: 'lina@example.com', amount: '5.00' }))).toBe('invalid_request');
      expect(await codeOf(start(wallet, '0.10'))).toBe('invalid_request');
    });
  });
});
