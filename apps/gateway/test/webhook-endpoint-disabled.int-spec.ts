import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, startTestSmtpServer, waitFor, type ReceivedMail, type Stack, type TestMerchant, type TestSmtpServer } from '@payments/testing';

// An endpoint the dispatcher disables on its own (here: it answered 410) shows as disabled, with the reason,
// in the gateway's API, and its merchant gets one e-mail saying so; enabling it again clears that and sends what
// it missed. Real sessions, dispatcher and gateway; loopback receiver (insecure targets on for this test); a real
// SMTP server in this process.
describe('an endpoint the dispatcher disabled', () => {
  let stack: Stack;
  let merchant: TestMerchant;
  let receiver: Server;
  let receiverUrl: string;
  let answer = 200;
  const received: Array<{ type: string; status: number }> = [];
  let smtp: TestSmtpServer;
  let merchantEmail: string;
  const PUBLIC_BASE_URL = 'https://pay.example.test';
  const noticesOf = (endpointId: string) => smtp.matching((mail) => mail.text.includes(`Endpoint id: ${endpointId}`));

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    stack.call(method, path, { key: merchant.test_key, body, headers });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ type: (JSON.parse(body) as { type: string }).type, status: answer });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    smtp = await startTestSmtpServer();
    stack = await startStack(['sessions', 'webhook-dispatcher', 'gateway'], {
      WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      PUBLIC_BASE_URL,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: smtp.url,
      MAIL_POLL_MS: '200',
    });
    merchant = await stack.createMerchant({ testLimit: 10000 });
    const gatewayDb = await stack.db.dataSource('gateway');
    merchantEmail = ((await gatewayDb.query('SELECT email FROM gateway.merchants WHERE id = $1', [merchant.merchant_id])) as Array<{ email: string }>)[0]!.email;
  });

  afterAll(async () => {
    await stack?.stop();
    await smtp?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('shows status disabled with reason gone after a 410, and enabled again once the merchant enables it', async () => {
    const created = await call('POST', '/api/v1/webhook-endpoints', { url: receiverUrl, events: ['payment_intent.created'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
    const id = created.body.id as string;

    // The dispatcher knows the endpoint once a test event reaches it.
    await waitFor(
      async () => {
        await call('POST', `/api/v1/webhook-endpoints/${id}/test`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        return received.some((r) => r.type === 'webhook_endpoint.test');
      },
      30_000,
      'a test event at the receiver',
      200,
    );
    expect((await call('GET', `/api/v1/webhook-endpoints/${id}`)).body.status).toBe('enabled');

    answer = 410;
    const intent = await call('POST', '/api/v1/payment-intents', { amount: '10.00', currency: 'USD' }, { 'idempotency-key': randomUUID() });
    expect(intent.status).toBe(201);
    let shown: Record<string, unknown> = {};
    await waitFor(
      async () => {
        shown = (await call('GET', `/api/v1/webhook-endpoints/${id}`)).body;
        return shown.status === 'disabled';
      },
      30_000,
      'the endpoint shown as disabled',
      200,
    );
    expect(shown).toMatchObject({ status: 'disabled', disabled_reason: 'gone', disabled_at: expect.any(String) });
    expect(received.filter((r) => r.type === 'payment_intent.created')).toEqual([{ type: 'payment_intent.created', status: 410 }]);
    const listed = await call('GET', '/api/v1/webhook-endpoints');
    expect(listed.body.data).toEqual([expect.objectContaining({ id, status: 'disabled', disabled_reason: 'gone' })]);

    // The merchant hears of it: which endpoint, in which mode, why, and where to enable it again.
    const notice: ReceivedMail = await smtp.waitFor((mail) => mail.text.includes(`Endpoint id: ${id}`), 15_000);
    expect(notice).toMatchObject({ to: [merchantEmail], subject: 'Webhook endpoint disabled (test mode)' });
    expect(notice.text).toContain(receiverUrl);
    expect(notice.text).toContain('410 Gone');
    expect(notice.text).toContain(`${PUBLIC_BASE_URL}/dashboard/test/developers/webhooks/${id}`);

    // Enabled again: the status clears, and the event that met the 410 is sent again.
    answer = 200;
    const enabled = await call('POST', `/api/v1/webhook-endpoints/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
    await waitFor(() => received.some((r) => r.type === 'payment_intent.created' && r.status === 200), 30_000, 'the missed event delivered');
    expect((await call('GET', `/api/v1/webhook-endpoints/${id}`)).body).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it('a test event answered 410 disables the endpoint at once too (the receiver says it is gone)', async () => {
    answer = 200;
    const created = await call('POST', '/api/v1/webhook-endpoints', { url: `${receiverUrl}/second`, events: ['payment_intent.created'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    answer = 410;
    let shown: Record<string, unknown> = {};
    await waitFor(
      async () => {
        const sent = await call('POST', `/api/v1/webhook-endpoints/${id}/test`);
        if (sent.status >= 300) return false;
        await new Promise((resolve) => setTimeout(resolve, 300));
        shown = (await call('GET', `/api/v1/webhook-endpoints/${id}`)).body;
        return shown.status === 'disabled';
      },
      30_000,
      'the endpoint disabled by the test event\'s 410',
      200,
    );
    expect(shown).toMatchObject({ status: 'disabled', disabled_reason: 'gone', disabled_at: expect.any(String) });
    await smtp.waitFor((mail) => mail.text.includes(`Endpoint id: ${id}`), 15_000);
    answer = 200;
  });

  it('e-mailed each disabling exactly once', async () => {
    // Time for a second message (a redelivered event, a second sender) to show if there were one.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const notices = smtp.matching((mail) => mail.subject.startsWith('Webhook endpoint disabled'));
    const endpointIds = notices.map((mail) => /Endpoint id: (\S+)/.exec(mail.text)![1]!);
    expect(endpointIds).toHaveLength(2);
    expect(new Set(endpointIds).size).toBe(2);
    for (const id of endpointIds) expect(noticesOf(id)).toHaveLength(1);
  });
});
