import { freePort, LahzaStandIn } from '@payments/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LahzaProvider } from '../src/providers/lahza/lahza.provider';
import { outcomeOf, ProviderRefused, ProviderUnavailable } from '../src/providers/payment-provider';

// The lahza adapter against a local stand-in that speaks Lahza's protocol over real HTTP: initialize, the hosted
// page, the redirect back with the reference, verify, signed notifications and refunds.
describe('lahza provider', () => {
  const secretKey = 'sk_test_standin_0123456789';
  let standIn: LahzaStandIn;
  let provider: LahzaProvider;
  let baseUrl: string;
  let sink: Server;
  let sinkUrl: string;
  const notifications: Array<{ body: Buffer; signature: string | undefined }> = [];
  let attempt = 0;
  const reference = () => `att_${Date.now()}_${attempt++}`;
  const start = (ref: string, amountCents = 7400) =>
    provider.startAttempt({ reference: ref, amountCents, currency: 'USD', email: 'customer@example.com', callbackUrl: 'https://pay.example/checkout/pi_test_1/lahza' });

  beforeAll(async () => {
    standIn = new LahzaStandIn({ secretKey });
    baseUrl = await standIn.listen();
    provider = new LahzaProvider({ baseUrl, secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha512' });
    sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        notifications.push({ body: Buffer.concat(chunks), signature: req.headers['x-lahza-signature'] as string | undefined });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await standIn.close();
    await new Promise((resolve) => sink.close(resolve));
  });

  beforeEach(() => {
    standIn.delayMs = 0;
  });

  it('happy path: initialize (minor units, our reference) → hosted page → back with the reference → verified success', async () => {
    const ref = reference();
    const { redirectUrl } = await start(ref);
    expect(redirectUrl).toMatch(new RegExp(`^${baseUrl}/pay/[0-9a-f]+$`));
    expect(standIn.transactions.get(ref)).toMatchObject({ amount: 7400, currency: 'USD', callbackUrl: 'https://pay.example/checkout/pi_test_1/lahza' });
    // The customer pays on the provider's page and is sent back with the reference.
    const page = await fetch(redirectUrl);
    expect(await page.text()).toContain('Pay 74.00 USD');
    const back = await fetch(`${redirectUrl}/complete?outcome=success`, { redirect: 'manual' });
    expect(new URL(back.headers.get('location')!).searchParams.get('reference')).toBe(ref);
    const verified = await provider.verify(ref);
    expect(verified).toEqual({ reference: ref, status: 'succeeded', amountCents: 7400, currency: 'USD', reason: null });
    expect(outcomeOf(verified, { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'succeeded' });
  });

  it('a decline verifies as declined with the provider\'s words, not over (the page may still be paid); an unpaid or abandoned attempt as pending', async () => {
    const declined = reference();
    await start(declined);
    standIn.complete(declined, 'failed');
    expect(await provider.verify(declined)).toMatchObject({ status: 'declined', reason: 'Declined' });
    expect(outcomeOf(await provider.verify(declined), { amountCents: 7400, currency: 'USD' })).toEqual({ outcome: 'declined', reason: 'Declined' });
    const open = reference();
    await start(open);
    expect((await provider.verify(open)).status).toBe('pending');
    standIn.report(open, 'abandoned');
    expect((await provider.verify(open)).status).toBe('pending');
    // Paid on the same page afterwards: a success like any other.
    standIn.complete(open, 'success');
    expect((await provider.verify(open)).status).toBe('succeeded');
  });

  it('an amount that differs from the session\'s fails loudly, whatever the provider calls it', async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    standIn.misreportedAmounts.set(ref, 740);
    const verified = await provider.verify(ref);
    expect(outcomeOf(verified, { amountCents: 7400, currency: 'USD' })).toEqual({
      outcome: 'failed',
      reason: 'amount_mismatch: provider verified 740 USD, the session is 7400 USD',
    });
  });

  it('a provider that does not answer in time is unavailable (retry later); a refusal is a refusal', async () => {
    standIn.delayMs = 1500;
    await expect(start(reference())).rejects.toBeInstanceOf(ProviderUnavailable);
    standIn.delayMs = 0;
    const wrongKey = new LahzaProvider({ baseUrl, secretKey: 'sk_wrong', timeoutMs: 1000, signatureAlgorithm: 'sha512' });
    await expect(wrongKey.verify('att_x')).rejects.toBeInstanceOf(ProviderRefused);
    await expect(provider.verify('att_never_started')).rejects.toBeInstanceOf(ProviderRefused);
    const unreachable = new LahzaProvider({ baseUrl: 'http://127.0.0.1:1', secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha512' });
    await expect(unreachable.verify('att_x')).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('takes a notification signed with the key (SHA-512 or SHA-256, as set) and refuses a forged one', async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    await standIn.notify(sinkUrl, ref);
    await standIn.notify(sinkUrl, ref, 'sk_forged');
    const [genuine, forged] = notifications.slice(-2);
    expect(provider.isSignedNotification(genuine!.body, genuine!.signature)).toBe(true);
    expect(provider.isSignedNotification(forged!.body, forged!.signature)).toBe(false);
    expect(provider.isSignedNotification(Buffer.concat([genuine!.body, Buffer.from(' ')]), genuine!.signature)).toBe(false);
    expect(provider.isSignedNotification(genuine!.body, undefined)).toBe(false);
    expect(provider.isSignedNotification(genuine!.body, 'zz')).toBe(false);

    const sha256 = new LahzaStandIn({ secretKey, signatureAlgorithm: 'sha256' });
    const sha256Base = await sha256.listen();
    const sha256Provider = new LahzaProvider({ baseUrl: sha256Base, secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha256' });
    await sha256Provider.startAttempt({ reference: ref, amountCents: 100, currency: 'USD', email: 'c@example.com', callbackUrl: 'https://pay.example/x' });
    await sha256.notify(sinkUrl, ref);
    const last = notifications.at(-1)!;
    expect(sha256Provider.isSignedNotification(last.body, last.signature)).toBe(true);
    expect(provider.isSignedNotification(last.body, last.signature)).toBe(false);
    await sha256.close();
  });

  it('a refund is pending, then processed or failed with the provider\'s reason; fetched by its id, listed by transaction', async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    const asked = await provider.refund({ reference: ref, amountCents: 2000 });
    expect(asked).toEqual({ id: expect.stringMatching(/^[0-9]+$/), status: 'pending', amountCents: 2000, reason: null });
    expect(await provider.refundStatus(asked.id!)).toEqual(asked);
    standIn.processRefunds();
    expect(await provider.refundStatus(asked.id!)).toEqual({ ...asked, status: 'processed' });

    const failing = await provider.refund({ reference: ref, amountCents: 3000 });
    standIn.failRefund(Number(failing.id), 'Insufficient merchant balance');
    const failed = { id: failing.id, status: 'failed', amountCents: 3000, reason: 'Insufficient merchant balance' };
    expect(await provider.refundStatus(failing.id!)).toEqual(failed);
    expect(await provider.refundsOf(ref)).toEqual([{ ...asked, status: 'processed' }, failed]);
    expect(await provider.refundsOf(reference())).toEqual([]);
    expect(standIn.requests).toContain('GET /refund');

    // More than remains (7400 - 2000; the failed one gave its 3000 back) is refused, in the provider's words.
    await expect(provider.refund({ reference: ref, amountCents: 5401 })).rejects.toMatchObject({ name: 'ProviderRefused', providerMessage: 'Refund amount cannot be more than the transaction amount' });
    expect((await provider.refund({ reference: ref, amountCents: 5400 })).status).toBe('pending');
    const unpaid = reference();
    await start(unpaid);
    await expect(provider.refund({ reference: unpaid, amountCents: 100 })).rejects.toBeInstanceOf(ProviderRefused);
    await expect(provider.refundStatus('999')).rejects.toBeInstanceOf(ProviderRefused);
  });

  it('a 2xx whose body is cut off, a 429 or a 5xx is no answer (it may have acted), never a refusal', async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    standIn.cutOff.add('POST /refund');
    const cut = await provider.refund({ reference: ref, amountCents: 1500 }).catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(ProviderUnavailable);
    expect((cut as ProviderUnavailable).mayHaveArrived).toBe(true);
    // Lahza made it all the same: its list shows it.
    expect(await provider.refundsOf(ref)).toEqual([{ id: expect.any(String), status: 'pending', amountCents: 1500, reason: null }]);
    standIn.cutOff.add('GET /transaction/verify');
    await expect(provider.verify(ref)).rejects.toBeInstanceOf(ProviderUnavailable);

    const answering = (status: number, body: string) => {
      const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
      return new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))).then((url) => ({ url, server }));
    };
    for (const [status, body] of [
      [429, '{"status":false,"message":"Too many requests"}'],
      [502, '<html>Bad gateway</html>'],
      [200, '{"status":true,"message":"Refund has been queued for processing"}'],
      [200, 'not json'],
    ] as const) {
      const { url, server } = await answering(status, body);
      try {
        const answer = await new LahzaProvider({ baseUrl: url, secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha512' }).refund({ reference: ref, amountCents: 100 }).catch((e: unknown) => e);
        expect([status, body, answer]).toEqual([status, body, expect.any(ProviderUnavailable)]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it("lists a transaction's refunds by `transaction`, and never lends another transaction's refund from a list that ignored the filter", async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    const other = reference();
    await start(other);
    standIn.complete(other, 'success');
    await provider.refund({ reference: ref, amountCents: 700 });
    await provider.refund({ reference: other, amountCents: 700 });
    expect((await provider.refundsOf(ref)).map((r) => r.amountCents)).toEqual([700]);
    // A list of every refund of the account (the filter ignored) still gives only this transaction's.
    const body = JSON.stringify({ status: true, data: standIn.refunds.map((r) => ({ id: r.id, amount: r.amount, status: r.status, transaction: { reference: r.transaction } })) });
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const unfiltered = new LahzaProvider({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha512' });
      expect((await unfiltered.refundsOf(ref)).map((r) => r.id)).toEqual(standIn.refunds.filter((r) => r.transaction === ref).map((r) => String(r.id)));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says whether a request it got no answer to may have reached the provider', async () => {
    const ref = reference();
    await start(ref);
    standIn.complete(ref, 'success');
    standIn.delayMs = 1500;
    const timedOut = await provider.refund({ reference: ref, amountCents: 100 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(ProviderUnavailable);
    expect((timedOut as ProviderUnavailable).mayHaveArrived).toBe(true);
    // Nothing listens there: the connection is refused, so the request never reached anyone.
    const unreachable = new LahzaProvider({ baseUrl: `http://127.0.0.1:${await freePort()}`, secretKey, timeoutMs: 1000, signatureAlgorithm: 'sha512' });
    const refused = await unreachable.refund({ reference: ref, amountCents: 100 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderUnavailable);
    expect((refused as ProviderUnavailable).mayHaveArrived).toBe(false);
  });
});
