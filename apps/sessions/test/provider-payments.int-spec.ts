import { createHmac } from 'node:crypto';
import { LahzaStandIn, waitFor } from '@payments/testing';
import { providerVerifications } from '../src/shared/sessions-metrics';
import { codeOf, createHarness, intentCommand, invoiceCommand, type SessionsHarness } from './support/sessions-harness';

// Paying at a provider (Lahza), against the local stand-in that speaks its protocol, on a real database: the
// attempt, the customer's return, signed notifications and the background check all end in one outcome, verified
// with the provider, written once.
describe('provider payments (lahza)', () => {
  const secretKey = 'sk_standin_provider_payments';
  const TIMEOUT_MS = 600;
  let standIn: LahzaStandIn;
  let lahzaUrl: string;
  let h: SessionsHarness;
  const merchant = 'acct_provider_payments';

  const liveIntent = (params: Record<string, unknown> = {}) =>
    h.intents.create(intentCommand(merchant, { environment: 'live' }, { customer: { email: 'buyer@example.com' }, ...params }), 'req_pp');
  const intentOf = (id: string) => h.intents.get({ merchant_id: merchant, environment: id.startsWith('pi_live_') ? 'live' : 'test', id });
  const referenceOf = (redirectUrl: string) => [...standIn.transactions.values()].find((tx) => redirectUrl.endsWith(`/pay/${tx.accessCode}`))!.reference;
  const attemptRows = (sessionId: string) =>
    h.sessions.dataSource.query(`SELECT reference, status, failure_reason, payment_id FROM ${h.sessions.table('provider_attempts')} WHERE session_id = $1 ORDER BY created_at`, [sessionId]);

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey });
    lahzaUrl = await standIn.listen();
    h = await createHarness({
      env: { LAHZA_BASE_URL: lahzaUrl, LAHZA_LIVE_SECRET_KEY: secretKey, LAHZA_TEST_SECRET_KEY: secretKey, LAHZA_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
  });

  afterAll(async () => {
    await h.close();
    await standIn.close();
  });

  beforeEach(() => {
    standIn.delayMs = 0;
  });

  /** The attempt is due for the background check now (a second in the past: Postgres keeps microseconds). */
  const dueNow = (reference: string) =>
    h.sessions.dataSource.query(`UPDATE ${h.sessions.table('provider_attempts')} SET next_check_at = now() - interval '1 second' WHERE reference = $1`, [reference]);
  /** Lahza's signed notification of the transaction, as Lahza sends it. */
  const notification = (reference: string, on: SessionsHarness = h) => {
    const body = Buffer.from(JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } }));
    return on.providerPayments.notification('lahza', body, createHmac('sha512', secretKey).update(body).digest('hex'));
  };

  it('pays a live intent: one attempt for every tab, verified on return, a replayed return changes nothing', async () => {
    const intent = await liveIntent();
    const first = await h.providerPayments.start(intent.id, 'lahza');
    // A second tab (or a double click) is sent to the same provider page: one transaction, one payment.
    const second = await h.providerPayments.start(intent.id, 'lahza');
    expect(second.redirect_url).toBe(first.redirect_url);
    const reference = referenceOf(first.redirect_url);
    expect(standIn.transactions.get(reference)).toMatchObject({ amount: 7400, currency: 'USD', email: 'buyer@example.com', callbackUrl: `https://pay.example.test/checkout/${intent.id}/return` });
    expect((await intentOf(intent.id)).status).toBe('processing');

    standIn.complete(reference, 'success');
    expect(await h.providerPayments.confirm(intent.id, reference)).toEqual({ id: intent.id, outcome: 'succeeded', late: false });
    const paid = await intentOf(intent.id);
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza', fee: '1.11', net_amount: '72.89' });
    // The same return again, and a notification of it: nothing more is written.
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'succeeded' });
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
    expect((await h.outboxOf(intent.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
    expect(await attemptRows(intent.id)).toEqual([{ reference, status: 'succeeded', failure_reason: null, payment_id: paid.payment_id }]);
    // Paid: no new attempt opens.
    expect(await codeOf(h.providerPayments.start(intent.id, 'lahza'))).toBe('invalid_state');
  });

  it('a decline fails the intent and the retry returns to the same Lahza page; a transaction Lahza ends unpaid gives way to a new attempt', async () => {
    const intent = await liveIntent();
    const declined = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.complete(declined, 'failed');
    expect(await h.providerPayments.confirm(intent.id, declined)).toEqual({ id: intent.id, outcome: 'failed', late: false });
    expect((await intentOf(intent.id)).status).toBe('failed');
    // A declined card may be retried on the same page: the same transaction.
    expect(referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url)).toBe(declined);
    // Over at Lahza without a payment: a new one.
    standIn.report(declined, 'reversed');
    const retry = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    expect(retry).not.toBe(declined);
    standIn.complete(retry, 'success');
    expect(await h.providerPayments.confirm(intent.id, retry)).toMatchObject({ outcome: 'succeeded' });
    expect((await attemptRows(intent.id)).map((a: { status: string; failure_reason: string | null }) => [a.status, a.failure_reason])).toEqual([
      ['failed', 'Reversed'],
      ['succeeded', null],
    ]);
  });

  it('refuses a return naming another session or an unknown reference, and forged notifications', async () => {
    const intent = await liveIntent();
    const other = await liveIntent();
    const reference = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.complete(reference, 'success');
    expect(await codeOf(h.providerPayments.confirm(other.id, reference))).toBe('not_found');
    expect(await codeOf(h.providerPayments.confirm(intent.id, 'attUnknown123'))).toBe('not_found');
    // A notification signed with another key is not acted on, whatever it says.
    const body = Buffer.from(JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } }));
    const forged = createHmac('sha512', 'not-the-key').update(body).digest('hex');
    expect(await h.providerPayments.notification('lahza', body, forged)).toEqual({ accepted: false });
    expect(await h.providerPayments.notification('lahza', body, null)).toEqual({ accepted: false });
    expect((await intentOf(intent.id)).status).toBe('processing');
    // Signed with the key: a hint to verify, and the verify says paid.
    const signed = createHmac('sha512', secretKey).update(body).digest('hex');
    expect(await h.providerPayments.notification('lahza', body, signed)).toEqual({ accepted: true, session: { id: intent.id, merchant_id: merchant, environment: 'live' } });
    // Answered first, verified after.
    await h.providerPayments.idle();
    expect((await intentOf(intent.id)).status).toBe('succeeded');
  });

  it('an amount the provider verified that differs from the session fails the attempt loudly', async () => {
    const intent = await liveIntent();
    const reference = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.complete(reference, 'success');
    standIn.misreportedAmounts.set(reference, 100);
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'failed' });
    expect(await intentOf(intent.id)).toMatchObject({ status: 'failed', paid: false });
    const [attempt] = await attemptRows(intent.id);
    expect(attempt.failure_reason).toBe('amount_mismatch: provider verified 100 USD, the session is 7400 USD');
  });

  it('a provider that does not answer leaves the intent payable; a verify it does not answer is retried in the background', async () => {
    const intent = await liveIntent();
    standIn.delayMs = TIMEOUT_MS * 2;
    expect(await codeOf(h.providerPayments.start(intent.id, 'lahza'))).toBe('service_unavailable');
    standIn.delayMs = 0;
    expect((await intentOf(intent.id)).status).toBe('requires_payment_method');
    expect(await attemptRows(intent.id)).toEqual([]);

    const reference = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.complete(reference, 'success');
    standIn.delayMs = TIMEOUT_MS * 2;
    const verifications = async (result: string) => (await providerVerifications.get()).values.find((v) => v.labels.provider === 'lahza' && v.labels.result === result)?.value ?? 0;
    const unavailableBefore = await verifications('unavailable');
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'pending' });
    // The verify that gave no outcome is counted (the provider-verify alert's series).
    expect(await verifications('unavailable')).toBe(unavailableBefore + 1);
    const answeredBefore = await verifications('answered');
    expect((await intentOf(intent.id)).status).toBe('processing');
    standIn.delayMs = 0;
    // Due (the check waits 5 s after a verify that gave nothing): the background check settles it. A second in the
    // past, as Postgres keeps microseconds and the check asks with the clock's milliseconds.
    await h.sessions.dataSource.query(`UPDATE ${h.sessions.table('provider_attempts')} SET next_check_at = now() - interval '1 second' WHERE reference = $1`, [reference]);
    expect(await h.providerPayments.checkDue(20)).toBeGreaterThanOrEqual(1);
    expect((await intentOf(intent.id)).status).toBe('succeeded');
    expect(await verifications('answered')).toBeGreaterThan(answeredBefore);
  });

  it('a payment verified after the intent expired is recorded, as succeeded after expired, never dropped', async () => {
    // Created so that it expires two seconds from now, the customer already on the provider's page.
    const intent = await h.clock.shifted(-298_000, () => liveIntent({ expires_in: 300 }));
    const reference = referenceOf((await h.clock.shifted(-298_000, () => h.providerPayments.start(intent.id, 'lahza'))).redirect_url);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await h.expiry.runOnce();
    expect((await intentOf(intent.id)).status).toBe('expired');
    // Expired: no way back to the provider's page from the checkout, but the open attempt is still watched.
    expect(await codeOf(h.providerPayments.start(intent.id, 'lahza'))).toBe('invalid_state');
    standIn.complete(reference, 'success');
    expect(await h.providerPayments.confirm(intent.id, reference)).toEqual({ id: intent.id, outcome: 'succeeded', late: true });
    const paid = await intentOf(intent.id);
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza' });
    expect(Date.parse(paid.paid_at!)).toBeGreaterThanOrEqual(Date.parse(paid.expires_at));
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
    expect((await h.outboxOf(intent.id)).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.expired',
      'payment_intent.succeeded',
    ]);
  });

  it('pays an invoice: it stays pending while the customer is away, then is paid with lahza', async () => {
    const invoice = await h.invoices.create(invoiceCommand(merchant, { environment: 'live' }), 'req_inv');
    const reference = referenceOf((await h.providerPayments.start(invoice.id, 'lahza')).redirect_url);
    expect((await h.invoices.get({ merchant_id: merchant, environment: 'live', id: invoice.id })).status).toBe('pending');
    standIn.complete(reference, 'success');
    expect(await h.providerPayments.confirm(invoice.id, reference)).toMatchObject({ outcome: 'succeeded' });
    const paid = await h.invoices.get({ merchant_id: merchant, environment: 'live', id: invoice.id });
    expect(paid).toMatchObject({ status: 'paid', fee: '1.11', net: '72.89', payment: { method: 'lahza' } });
  });

  it('a payment made on the same Lahza page after it reported the attempt abandoned, then declined, is recorded: one attempt, one payment', async () => {
    const intent = await liveIntent();
    const page = (await h.providerPayments.start(intent.id, 'lahza')).redirect_url;
    const reference = referenceOf(page);
    const initialized = standIn.count('POST /transaction/initialize');
    // The customer has not finished on Lahza's page when the background check verifies: not over, nothing changes.
    standIn.report(reference, 'abandoned');
    await dueNow(reference);
    expect(await h.providerPayments.checkDue(20)).toBeGreaterThanOrEqual(1);
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ reference, status: 'open' })]);
    expect((await intentOf(intent.id)).status).toBe('processing');
    // "Continue the payment" (or a second tab) leads to the same page.
    expect((await h.providerPayments.start(intent.id, 'lahza')).redirect_url).toBe(page);

    // A declined card: the customer is told (the intent fails, and may be paid again), the attempt stays open.
    standIn.report(reference, 'failed');
    expect(await h.providerPayments.confirm(intent.id, reference)).toEqual({ id: intent.id, outcome: 'failed', late: false });
    expect((await intentOf(intent.id)).status).toBe('failed');
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ reference, status: 'open' })]);
    // Trying again leads to the same page: no second transaction that could charge again.
    expect((await h.providerPayments.start(intent.id, 'lahza')).redirect_url).toBe(page);
    expect(standIn.count('POST /transaction/initialize')).toBe(initialized);

    // Paid there at last: Lahza's notification is verified and the payment recorded, once.
    standIn.complete(reference, 'success');
    expect(await notification(reference)).toMatchObject({ accepted: true });
    await h.providerPayments.idle();
    const paid = await intentOf(intent.id);
    expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'lahza' });
    expect(await h.providerPayments.confirm(intent.id, reference)).toEqual({ id: intent.id, outcome: 'succeeded', late: false });
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
    expect((await h.outboxOf(intent.id)).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.payment_failed',
      'payment_intent.processing',
      'payment_intent.succeeded',
    ]);
    expect(await attemptRows(intent.id)).toEqual([{ reference, status: 'succeeded', failure_reason: null, payment_id: paid.payment_id }]);
  });

  it('a payment made on the Lahza page after a decline and a cancel leaves the intent cancelled: kept on the attempt for a refund, never booked', async () => {
    const intent = await liveIntent();
    const reference = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.report(reference, 'failed');
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'failed' });
    // The merchant (or the customer on the failed page) cancels; the declined attempt stays open at Lahza.
    expect((await h.intents.cancel({ merchant_id: merchant, environment: 'live', id: intent.id }, 'req_cancel')).status).toBe('cancelled');

    // The customer pays on the Lahza page still open: the intent stays cancelled, the payment is the attempt's.
    standIn.complete(reference, 'success');
    expect(await notification(reference)).toMatchObject({ accepted: true });
    await h.providerPayments.idle();
    expect(await intentOf(intent.id)).toMatchObject({ status: 'cancelled', paid: false, payment_id: null });
    expect(await attemptRows(intent.id)).toEqual([expect.objectContaining({ reference, status: 'succeeded', failure_reason: 'session_cancelled' })]);
    expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(0);
    // The customer's return shows our page (the session as it is), never the shop's success page.
    expect(await h.providerPayments.confirm(intent.id, reference)).toMatchObject({ outcome: 'succeeded', late: true });
  });

  it('an attempt Lahza never settles is watched while it may be paid, then closed: no verify every 5 minutes for ever', async () => {
    const intent = await liveIntent({ expires_in: 300 });
    const reference = referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url);
    standIn.report(reference, 'abandoned');
    await dueNow(reference);
    await h.providerPayments.checkDue(20);
    expect((await attemptRows(intent.id))[0]).toMatchObject({ status: 'open' });
    // Hours after the session expired, still watched: a customer still on Lahza's page is recorded late.
    await h.clock.shifted(6 * 3600_000, () => h.providerPayments.checkDue(20));
    expect((await attemptRows(intent.id))[0]).toMatchObject({ status: 'open' });
    // A day after it began, its session over and Lahza still without an outcome: closed, never verified again.
    await h.clock.shifted(25 * 3600_000, () => h.providerPayments.checkDue(20));
    expect((await attemptRows(intent.id))[0]).toMatchObject({ status: 'failed', failure_reason: 'no_outcome' });
    const verifies = standIn.count(`GET /transaction/verify/${reference}`);
    await h.clock.shifted(50 * 3600_000, () => h.providerPayments.checkDue(20));
    expect(standIn.count(`GET /transaction/verify/${reference}`)).toBe(verifies);
  });

  it('the background check verifies the attempts verified least first: old ones Lahza never settles do not hold up a new one', async () => {
    const old = await liveIntent();
    const oldReference = referenceOf((await h.providerPayments.start(old.id, 'lahza')).redirect_url);
    const fresh = await liveIntent();
    const freshReference = referenceOf((await h.providerPayments.start(fresh.id, 'lahza')).redirect_url);
    const table = h.sessions.table('provider_attempts');
    // Only these two are due: the old one verified many times and due for an hour, the new one just due.
    await h.sessions.dataSource.query(`UPDATE ${table} SET next_check_at = now() + interval '1 hour' WHERE status = 'open' AND reference NOT IN ($1, $2)`, [oldReference, freshReference]);
    await h.sessions.dataSource.query(`UPDATE ${table} SET checks = 40, next_check_at = now() - interval '1 hour' WHERE reference = $1`, [oldReference]);
    await dueNow(freshReference);
    standIn.complete(freshReference, 'success');
    expect(await h.providerPayments.checkDue(1)).toBe(1);
    expect((await intentOf(fresh.id)).status).toBe('succeeded');
    expect(standIn.count(`GET /transaction/verify/${oldReference}`)).toBe(0);
  });

  it('a notification is answered before a slow Lahza answers its verify, and one verify runs per attempt however many notifications arrive', async () => {
    // Lahza answers verifies in 8 s, within this instance's timeout: with the gateway's 5 s deadline, waiting for it
    // would answer every notification with a timeout, and Lahza would send them again and again.
    const patient = await createHarness({ db: h.db, env: { LAHZA_BASE_URL: lahzaUrl, LAHZA_LIVE_SECRET_KEY: secretKey, LAHZA_TIMEOUT_MS: '15000' } });
    try {
      const intents = await Promise.all(Array.from({ length: 5 }, () => liveIntent()));
      const references: string[] = [];
      for (const intent of intents) references.push(referenceOf((await h.providerPayments.start(intent.id, 'lahza')).redirect_url));
      for (const reference of references) standIn.complete(reference, 'success');
      standIn.slow.set('GET /transaction/verify', 8000);
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => notification(references[i % references.length]!, patient)));
      expect(replies.every((r) => r.accepted)).toBe(true);
      // Every notification answered while Lahza has not answered a single verify ...
      const ended = () => references.reduce((n, reference) => n + standIn.count(`GET /transaction/verify/${reference}`) - standIn.inFlight(`GET /transaction/verify/${reference}`), 0);
      expect(ended()).toBe(0);
      // ... and one verify per attempt, in flight (the last may still be on its way when the answers are in).
      await waitFor(() => standIn.inFlight('GET /transaction/verify') === references.length, 5_000, 'a verify of each attempt in flight');
      expect(ended()).toBe(0);
      for (const reference of references) expect(standIn.count(`GET /transaction/verify/${reference}`)).toBe(1);
      await patient.providerPayments.idle();
      for (const intent of intents) expect((await intentOf(intent.id)).status).toBe('succeeded');
      for (const intent of intents) expect(await h.count('payments', 'source_id = $1', [intent.id])).toBe(1);
      for (const reference of references) expect(standIn.count(`GET /transaction/verify/${reference}`)).toBe(1);
    } finally {
      standIn.slow.clear();
      await patient.providerPayments.idle();
      await patient.dataSource.destroy();
    }
  }, 60_000);

  it('offers lahza only in an environment with a key', async () => {
    const keyless = await createHarness({ db: h.db, env: { LAHZA_TEST_SECRET_KEY: secretKey, LAHZA_BASE_URL: 'http://127.0.0.1:9' } });
    try {
      const live = await keyless.intents.create(intentCommand(merchant, { environment: 'live' }), 'req_k');
      expect(await codeOf(keyless.providerPayments.start(live.id, 'lahza'))).toBe('payment_methods_unavailable');
    } finally {
      await keyless.dataSource.destroy();
    }
  });
});
