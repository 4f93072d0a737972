import { createHmac, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { SESSIONS_COMMANDS, SESSIONS_SERVICE, type ProviderRefundReply } from '@payments/contracts';
import { STREAMS, topicName } from '@payments/events';
import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { commandPattern, CommandClient, ServiceClient } from '@payments/platform';
import { collectMessages, freePort, LahzaStandIn, startStack, TestWebhookReceiver, waitFor, type Stack, type TestMerchant } from '@payments/testing';

// Refunds of live lahza payments, through the gateway, with every service running and Lahza played by the local
// stand-in: a refund is pending until the provider says processed (completed) or failed (failed, with its reason,
// and the amount refundable again), learnt by the background check or at once from the provider's signed
// notification; the provider is asked once per refund whatever is sent again, and a provider that is down leaves the
// refund pending until it is back. Lahza misbehaving as it can: a refund answer cut off (the refund exists: pending,
// then completed, debited once), a payment made after Lahza called the transaction abandoned (recorded, posted once),
// and a slow Lahza under a storm of notifications (each answered at once, one verify per attempt).
describe('refunds of live lahza payments', () => {
  const SECRET_KEY = 'sk_standin_provider_refunds_stack';
  let standIn: LahzaStandIn;
  let stack: Stack;
  let merchant: TestMerchant;
  let db: Client;
  const receiver = new TestWebhookReceiver();
  const arrivals = receiver.arrivals;

  const live = (method: string, path: string, body?: object, key: string = randomUUID()) =>
    stack.call(method, path, { key: merchant.live_key!, body, headers: method === 'POST' ? { 'Idempotency-Key': key } : {} });
  const refund = (paymentId: string, body: object) => live('POST', `/api/v1/payments/${paymentId}/refunds`, body);
  const getRefund = async (id: string) => (await live('GET', `/api/v1/refunds/${id}`)).body;
  const getPayment = async (id: string) => (await live('GET', `/api/v1/payments/${id}`)).body;
  const refundPosts = () => standIn.count('POST /refund');
  const atLahza = (reference: string) => standIn.refunds.filter((r) => r.transaction === reference);
  /** The background check asks about the refund at its next round (rather than after its pause). */
  const checkNow = (id: string) => db.query(`UPDATE refunds.refunds SET next_check_at = now() - interval '1 second' WHERE id = $1`, [id]);
  const checksOf = async (id: string) => (await db.query<{ checks: number }>(`SELECT checks FROM refunds.refunds WHERE id = $1`, [id])).rows[0]!.checks;

  /** A live intent whose customer is on Lahza's page, sent there by the hosted checkout. */
  async function atLahzaPage(amount: string): Promise<{ intentId: string; reference: string }> {
    const intent = (await live('POST', '/api/v1/payment-intents', { amount, currency: 'USD' })).body;
    const pay = await fetch(`${stack.gatewayUrl}/checkout/${intent.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `method=lahza&attempt=${randomUUID()}`,
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    const location = pay.headers.get('location')!;
    return { intentId: intent.id, reference: [...standIn.transactions.values()].find((tx) => location.endsWith(`/pay/${tx.accessCode}`))!.reference };
  }

  /** Lahza's signed notification of a transaction, sent to the gateway; answers its status. */
  async function notifyPayment(reference: string): Promise<number> {
    const body = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success' } });
    const signature = createHmac('sha512', SECRET_KEY).update(body).digest('hex');
    const res = await fetch(`${stack.gatewayUrl}/providers/lahza/notifications`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-lahza-signature': signature }, body });
    await res.arrayBuffer();
    return res.status;
  }

  /** A live intent paid at Lahza through the hosted checkout, as a customer pays it. */
  async function paidAtLahza(amount: string): Promise<{ intentId: string; paymentId: string; reference: string }> {
    const { intentId, reference } = await atLahzaPage(amount);
    standIn.complete(reference, 'success');
    const back = await fetch(`${stack.gatewayUrl}/checkout/${intentId}/return?reference=${reference}`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    const paid = (await live('GET', `/api/v1/payment-intents/${intentId}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'lahza' });
    return { intentId, paymentId: paid.payment_id, reference };
  }

  async function refundEvents(id: string, n: number) {
    const messages = await collectMessages(topicName(stack.namespace, STREAMS.refunds), n, 30_000, undefined, (m) => m.key === id);
    return messages.map((m) => JSON.parse(m.value!));
  }

  async function webhook(refundId: string, type: string) {
    const find = () => arrivals.find((a) => a.webhook.type === type && JSON.stringify(a.webhook.event).includes(refundId));
    await waitFor(() => find() !== undefined, 30_000, `${type} of ${refundId}`);
    return find()!;
  }

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey: SECRET_KEY });
    const lahzaUrl = await standIn.listen();
    const receiverUrl = await receiver.listen();
    const gatewayPort = String(await freePort());
    stack = await startStack(
      ['sessions', 'refunds', 'ledger', 'webhook-dispatcher', 'gateway'],
      { PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`, WEBHOOK_ALLOW_INSECURE_TARGETS: '1', RATE_LIMIT_TEST_PER_SEC: '10000' },
      {
        gateway: { PORT: gatewayPort },
        // Lahza may take 4 s; the refunds service waits 1 s for sessions, so a slow provider loses its answer on the way.
        // A refund notification's answer may wait up to 3 s (of the gateway's 5) for Lahza's word, so a busy machine still
        // names the refund settled in it.
        sessions: { LAHZA_BASE_URL: lahzaUrl, LAHZA_LIVE_SECRET_KEY: SECRET_KEY, LAHZA_TIMEOUT_MS: '4000', PROVIDER_NOTIFICATION_WAIT_MS: '3000' },
        refunds: { SESSIONS_TIMEOUT_MS: '1000', PROVIDER_REFUND_CHECK_INTERVAL_MS: '200' },
      },
    );
    merchant = await stack.createMerchant({ verified: true });
    db = new Client({ connectionString: stack.db.url });
    await db.connect();
    const endpoint = await live('POST', '/api/v1/webhook-endpoints', {
      url: receiverUrl,
      events: ['refund.created', 'refund.completed', 'refund.failed'],
    });
    expect(endpoint.status).toBe(201);
    receiver.secret = endpoint.body.secret;
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await standIn?.close();
    await receiver.close();
  });

  beforeEach(() => {
    standIn.delayMs = 0;
    standIn.slow.clear();
    standIn.cutOff.clear();
  });

  it('answers 201 pending, and completes once the provider has processed it, learnt by the background check', async () => {
    const { intentId, paymentId, reference } = await paidAtLahza('40.00');
    const made = await refund(paymentId, { amount: '10.00', reason: 'returned' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ payment_id: paymentId, amount: '10.00', status: 'pending', failure_reason: null, completed_at: null, environment: 'live' });
    expect(atLahza(reference)).toEqual([expect.objectContaining({ amount: 1000, status: 'pending' })]);
    // Pending: not refunded yet, but what it sets aside cannot be refunded twice.
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '0.00', status: 'succeeded', refunds: [made.body] });
    expect((await refund(paymentId, { amount: '30.01' })).body.error).toMatchObject({ code: 'refund_exceeds_payment' });

    standIn.processRefunds();
    await waitFor(async () => (await getRefund(made.body.id)).status === 'completed', 30_000, 'the background check to complete the refund');
    const completed = await getRefund(made.body.id);
    expect(completed).toMatchObject({ status: 'completed', completed_at: expect.any(String), failure_reason: null });
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '10.00', status: 'partially_refunded' });

    const events = await refundEvents(made.body.id, 2);
    expect(events.map((e) => [e.type, e.sequence, e.data.object.status])).toEqual([
      ['refund.created', 1, 'pending'],
      ['refund.completed', 2, 'completed'],
    ]);
    expect(events[1].data).toEqual({ object: completed, payment: { id: paymentId, source: intentId, method: 'lahza', amount: '40.00', currency: 'USD' } });
    // Created by the merchant's command; completed by the background check, which no command asked for.
    expect(events[0].causation_id).toEqual(expect.any(String));
    expect(events[1].causation_id).toBeNull();
    const arrival = await webhook(made.body.id, 'refund.completed');
    expect(arrival.webhook.event).toMatchObject({ type: 'refund.completed', environment: 'live', data: { object: completed } });
  });

  it('a refund the provider fails is failed with its reason, its amount refundable again; refund.failed goes out and reaches the merchant signed', async () => {
    const { paymentId, reference } = await paidAtLahza('25.00');
    const made = (await refund(paymentId, {})).body;
    expect(made).toMatchObject({ amount: '25.00', status: 'pending' });
    standIn.failRefund(reference, 'Insufficient merchant balance');
    await checkNow(made.id);
    await waitFor(async () => (await getRefund(made.id)).status === 'failed', 30_000, 'the refund to fail');
    const failed = await getRefund(made.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'Insufficient merchant balance', completed_at: null });
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '0.00', status: 'succeeded' });

    const events = await refundEvents(made.id, 2);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([
      ['refund.created', 1],
      ['refund.failed', 2],
    ]);
    expect(events[1].data.object).toEqual(failed);
    const arrival = await webhook(made.id, 'refund.failed');
    expect(arrival.headers['x-service-event']).toBe('refund.failed');
    expect(arrival.webhook.event).toMatchObject({ type: 'refund.failed', environment: 'live', data: { object: failed } });
    expect(receiver.rejected).toBe(0);

    // The whole amount is free again: refunded anew, and processed this time.
    const again = (await refund(paymentId, { amount: '25.00' })).body;
    expect(again).toMatchObject({ amount: '25.00', status: 'pending' });
    standIn.processRefunds();
    await checkNow(again.id);
    await waitFor(async () => (await getRefund(again.id)).status === 'completed', 30_000, 'the new refund to complete');
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '25.00', status: 'refunded' });
    expect(atLahza(reference).map((r) => [r.amount, r.status])).toEqual([
      [2500, 'failed'],
      [2500, 'processed'],
    ]);
  });

  it('asks the provider once per refund, however often the command is sent after an answer was lost', async () => {
    const { paymentId, reference } = await paidAtLahza('30.00');
    const posts = refundPosts();
    // Lahza answers after 2 s: sessions gets its answer, the refunds service has stopped waiting for sessions.
    standIn.delayMs = 2000;
    const made = (await refund(paymentId, { amount: '12.00' })).body;
    expect(made).toMatchObject({ status: 'pending' });
    await waitFor(() => atLahza(reference).length === 1, 10_000, 'the refund to reach the provider');
    standIn.delayMs = 0;

    // The same command again, as a caller whose answer was lost sends it, several at once.
    const client = new CommandClient({ upstreams: { sessions: [stack.services.sessions!.commandUrl!] }, secrets: [DEVELOPMENT_COMMAND_SECRET] });
    try {
      const sessions = new ServiceClient(client, 5000);
      const command = { merchant_id: merchant.merchant_id, environment: 'live', payment_id: paymentId, refund_id: made.id, amount: '12.00' };
      const replies = await Promise.all(
        Array.from({ length: 5 }, () =>
          sessions.request<ProviderRefundReply>(commandPattern(SESSIONS_SERVICE, SESSIONS_COMMANDS.refundAtProvider), command, { correlationId: 'retry', commandId: made.id }),
        ),
      );
      expect(replies).toEqual(Array(5).fill({ refund_id: made.id, status: 'pending', reason: null }));
    } finally {
      await client.close();
    }

    standIn.processRefunds();
    await checkNow(made.id);
    await waitFor(async () => (await getRefund(made.id)).status === 'completed', 30_000, 'the refund to complete');
    expect(refundPosts()).toBe(posts + 1);
    expect(atLahza(reference)).toEqual([expect.objectContaining({ amount: 1200, status: 'processed' })]);
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '12.00' });
  });

  it('a provider that is down leaves the refund pending; the background check resolves it once the provider is back', async () => {
    const { paymentId, reference } = await paidAtLahza('20.00');
    const posts = refundPosts();
    await standIn.close();
    let down = true;
    try {
      const made = (await refund(paymentId, { amount: '5.00' })).body;
      expect(made).toMatchObject({ status: 'pending' });
      await checkNow(made.id);
      await waitFor(async () => (await checksOf(made.id)) >= 1, 10_000, 'a check while the provider is down');
      // Asked about while down: still pending, nothing refunded, nothing reached the provider.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await getRefund(made.id)).toMatchObject({ status: 'pending' });
      expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '0.00' });

      await standIn.listen();
      down = false;
      await checkNow(made.id);
      await waitFor(() => atLahza(reference).length === 1, 20_000, 'the refund to reach the provider once it is back');
      standIn.processRefunds();
      await checkNow(made.id);
      await waitFor(async () => (await getRefund(made.id)).status === 'completed', 30_000, 'the refund to complete');
      expect(refundPosts()).toBe(posts + 1);
      expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '5.00', status: 'partially_refunded' });
    } finally {
      // Back up for the tests after this one, whatever happened here.
      if (down) await standIn.listen();
    }
  });

  it("the provider's signed refund notification settles the refund at once, not at the background check's next round", async () => {
    const notifications = `${stack.gatewayUrl}/providers/lahza/notifications`;
    /** The background check would ask only in an hour: whatever settles the refund now is the notification. */
    const checkLater = (id: string) => db.query(`UPDATE refunds.refunds SET next_check_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    const { paymentId, reference } = await paidAtLahza('15.00');

    const done = (await refund(paymentId, { amount: '6.00' })).body;
    expect(done).toMatchObject({ status: 'pending' });
    await checkLater(done.id);
    const processed = standIn.refunds.at(-1)!;
    standIn.processRefunds();
    // Forged: refused, nothing asked, the refund still pending.
    expect(await standIn.notifyRefund(notifications, processed.id, 'not-the-key')).toBe(400);
    expect(await getRefund(done.id)).toMatchObject({ status: 'pending' });
    expect(await standIn.notifyRefund(notifications, processed.id)).toBe(200);
    // Settled when the notification is answered: no wait.
    expect(await getRefund(done.id)).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '6.00', status: 'partially_refunded' });

    const declined = (await refund(paymentId, { amount: '9.00' })).body;
    await checkLater(declined.id);
    const failedThere = standIn.failRefund(reference, 'Card closed');
    expect(await standIn.notifyRefund(notifications, failedThere.id)).toBe(200);
    expect(await getRefund(declined.id)).toMatchObject({ status: 'failed', failure_reason: 'Card closed' });
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '6.00' });
    // A repeated notification changes nothing and sends nothing to the provider.
    const posts = refundPosts();
    expect(await standIn.notifyRefund(notifications, failedThere.id)).toBe(200);
    expect(refundPosts()).toBe(posts);
    expect((await refundEvents(declined.id, 2)).map((e) => e.type)).toEqual(['refund.created', 'refund.failed']);
    expect((await refundEvents(done.id, 2)).map((e) => e.type)).toEqual(['refund.created', 'refund.completed']);
  });

  it('a refund whose 2xx answer from Lahza is cut off is pending, then completed: the merchant is debited once, and the same amount is not refunded again', async () => {
    const { paymentId, reference } = await paidAtLahza('18.00');
    const posts = refundPosts();
    standIn.cutOff.add('POST /refund');
    const made = await refund(paymentId, { amount: '18.00' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ amount: '18.00', status: 'pending', failure_reason: null });
    expect(atLahza(reference)).toEqual([expect.objectContaining({ amount: 1800, status: 'pending' })]);
    // Set aside while pending: not refundable a second time.
    expect((await refund(paymentId, { amount: '18.00' })).body.error).toMatchObject({ code: 'refund_exceeds_payment' });

    standIn.processRefunds();
    await checkNow(made.body.id);
    await waitFor(async () => (await getRefund(made.body.id)).status === 'completed', 30_000, 'the refund found in Lahza\'s list to complete');
    expect(await getPayment(paymentId)).toMatchObject({ refunded_amount: '18.00', status: 'refunded' });
    expect((await refund(paymentId, { amount: '18.00' })).body.error).toMatchObject({ code: 'refund_exceeds_payment' });
    expect(refundPosts()).toBe(posts + 1);
    const bookings = async () => (await live('GET', '/api/v1/balance-transactions?type=refund&limit=100')).body.data.filter((t: { source: string }) => t.source === made.body.id);
    await waitFor(async () => (await bookings()).length > 0, 30_000, 'the ledger to book the refund');
    expect(await bookings()).toEqual([expect.objectContaining({ amount: '-18.00' })]);
    expect((await refundEvents(made.body.id, 2)).map((e) => e.type)).toEqual(['refund.created', 'refund.completed']);
  });

  it('a payment made on the same Lahza page after Lahza reported it abandoned is recorded: one succeeded payment, one posting', async () => {
    const { intentId, reference } = await atLahzaPage('11.00');
    // Back before finishing, while Lahza calls the transaction abandoned; Lahza's notification says the same.
    standIn.report(reference, 'abandoned');
    const back = await fetch(`${stack.gatewayUrl}/checkout/${intentId}/return?reference=${reference}`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect((await live('GET', `/api/v1/payment-intents/${intentId}`)).body.status).toBe('processing');
    expect(await notifyPayment(reference)).toBe(200);

    // Paid on the same page after all.
    standIn.complete(reference, 'success');
    expect(await notifyPayment(reference)).toBe(200);
    await waitFor(async () => (await live('GET', `/api/v1/payment-intents/${intentId}`)).body.status === 'succeeded', 30_000, 'the payment to be recorded');
    const paid = (await live('GET', `/api/v1/payment-intents/${intentId}`)).body;
    expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'lahza', amount: '11.00' });
    const postings = async () => (await live('GET', '/api/v1/balance-transactions?type=payment&limit=100')).body.data.filter((t: { source: string }) => t.source === intentId);
    await waitFor(async () => (await postings()).length > 0, 30_000, 'the ledger to post the payment');
    expect(await postings()).toEqual([expect.objectContaining({ amount: '11.00', payment_id: paid.payment_id })]);
    expect(await db.query(`SELECT count(*)::int AS n FROM sessions.payments WHERE source_id = $1`, [intentId]).then((r) => r.rows[0].n)).toBe(1);
  });

  it('50 Lahza notifications while Lahza takes 8 s to answer are each answered at once, with one verify per attempt: no resend storm', async () => {
    const pages = await Promise.all(Array.from({ length: 5 }, () => atLahzaPage('5.00')));
    for (const { reference } of pages) standIn.complete(reference, 'success');
    // Lahza answers a verify in 8 s; sessions gives up on it after 4 s; the gateway's command deadline is 5 s.
    standIn.slow.set('GET /transaction/verify', 8000);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => notifyPayment(pages[i % pages.length]!.reference)));
    expect(answers).toEqual(Array(50).fill(200));
    // All answered before any verify ended: the answers did not wait for Lahza.
    const ended = () => pages.reduce((n, { reference }) => n + standIn.count(`GET /transaction/verify/${reference}`) - standIn.inFlight(`GET /transaction/verify/${reference}`), 0);
    expect(ended()).toBe(0);
    // Each attempt verified once; the last verifies may still be on their way to Lahza when the answers are in.
    await waitFor(() => standIn.inFlight('GET /transaction/verify') === pages.length, 5_000, 'a verify of each attempt in flight');
    expect(ended()).toBe(0);
    for (const { reference } of pages) expect(standIn.count(`GET /transaction/verify/${reference}`)).toBe(1);

    // Lahza answers in time again: the background check, told by the notifications, records each payment.
    standIn.slow.clear();
    for (const { intentId } of pages) {
      await waitFor(async () => (await live('GET', `/api/v1/payment-intents/${intentId}`)).body.status === 'succeeded', 30_000, `${intentId} to be paid`);
    }
    for (const { reference } of pages) expect(standIn.count(`GET /transaction/verify/${reference}`)).toBeLessThanOrEqual(3);
  }, 60_000);

  it('the ledger books the completed refunds, never a pending or failed one', async () => {
    const completed = (await db.query<{ id: string }>(`SELECT id FROM refunds.refunds WHERE environment = 'live' AND merchant_id = $1 AND status = 'completed'`, [merchant.merchant_id])).rows.map((r) => r.id);
    expect(completed).toHaveLength(6);
    const booked = async () => (await live('GET', '/api/v1/balance-transactions?type=refund&limit=100')).body.data.map((t: { source: string }) => t.source).sort();
    await waitFor(async () => (await booked()).length === completed.length, 30_000, 'the ledger to book the completed refunds');
    expect(await booked()).toEqual([...completed].sort());
  });
});
