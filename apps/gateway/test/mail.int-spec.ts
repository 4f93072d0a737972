import { exitOf, freePort, startService, startStack, startTestSmtpServer, waitFor, type RunningService, type Stack, type TestSmtpServer } from '@payments/testing';
import type { DataSource } from 'typeorm';
import { MailOutbox } from '../src/mail/mail-outbox';
import { MailOutboxRepository, SENT_TEXT } from '../src/mail/mail-outbox.repository';

// The mail outbox end to end: messages written to the gateway's table reach a real SMTP server (in this process)
// through the gateway's sender, once each, through refusals, a server that is down, and two gateway instances.
// And the development mail page, served only while MAIL_TRANSPORT=page.
describe('mail from the gateway', () => {
  let smtp: TestSmtpServer;
  let stack: Stack;
  let gatewayDb: DataSource;
  let outbox: MailOutbox;

  const SMTP_USER = 'gateway';
  const SMTP_PASSWORD = 's3cret pass';
  const settings = () => ({ MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url, MAIL_FROM: 'Payments <no-reply@pay.example.test>', MAIL_RETRY_DELAYS_MS: '300', MAIL_POLL_MS: '200' });
  const bySubject = (subject: string) => smtp.matching((mail) => mail.subject === subject);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

  beforeAll(async () => {
    smtp = await startTestSmtpServer({ auth: { user: SMTP_USER, password: SMTP_PASSWORD } });
    stack = await startStack(['gateway'], settings());
    gatewayDb = await stack.db.dataSource('gateway');
    outbox = new MailOutbox(new MailOutboxRepository(gatewayDb, 'gateway'));
  });

  afterAll(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  it('sends an enqueued message over SMTP, logged in, from MAIL_FROM, and marks it sent', async () => {
    const id = await outbox.enqueue({ kind: 'confirm_email', to: 'first@example.com', subject: 'Confirm your e-mail', text: 'Open http://localhost:3000/confirm?token=abc' });
    const mail = await smtp.waitFor((m) => m.subject === 'Confirm your e-mail');
    expect(mail).toMatchObject({ to: ['first@example.com'], from: 'no-reply@pay.example.test', user: SMTP_USER, text: 'Open http://localhost:3000/confirm?token=abc\n' });
    expect(mail.fromHeader).toContain('Payments');
    expect(mail.messageId).toBe(`<${id}@pay.example.test>`);
    await waitFor(async () => (await gatewayDb.query(`SELECT sent_at FROM gateway.mail_outbox WHERE id = $1`, [id]))[0].sent_at !== null, 5000, 'the message marked sent');
    await settle();
    expect(bySubject('Confirm your e-mail')).toHaveLength(1);
    // Sent, its link is not kept in plain text beside the token's hash: the row says what went to whom, and when.
    const [row] = await gatewayDb.query(`SELECT kind, recipient, subject, text, html FROM gateway.mail_outbox WHERE id = $1`, [id]);
    expect(row).toEqual({ kind: 'confirm_email', recipient: 'first@example.com', subject: 'Confirm your e-mail', text: SENT_TEXT, html: null });
  });

  it('tries again after the server answers 451, and delivers the message once', async () => {
    smtp.refuseNext(2, 451);
    const refusedBefore = smtp.refused;
    const id = await outbox.enqueue({ kind: 'password_reset', to: 'second@example.com', subject: 'Reset your password', text: 'Reset it.' });
    await smtp.waitFor((m) => m.subject === 'Reset your password', 15_000);
    expect(smtp.refused - refusedBefore).toBe(2);
    await settle();
    expect(bySubject('Reset your password')).toHaveLength(1);
    const [row] = await gatewayDb.query(`SELECT attempts, sent_at, last_error FROM gateway.mail_outbox WHERE id = $1`, [id]);
    expect(row).toMatchObject({ attempts: 3, sent_at: expect.any(Date), last_error: null });
  });

  it('keeps a message while the server is down and delivers it once it is back', async () => {
    await smtp.stop();
    let id = '';
    try {
      id = await outbox.enqueue({ kind: 'invitation', to: 'third@example.com', subject: 'You are invited', text: 'Join the team.' });
      await waitFor(
        async () => (await gatewayDb.query(`SELECT attempts FROM gateway.mail_outbox WHERE id = $1`, [id]))[0].attempts >= 2,
        10_000,
        'two failed attempts while the server is down',
      );
      const [row] = await gatewayDb.query(`SELECT sent_at, last_error FROM gateway.mail_outbox WHERE id = $1`, [id]);
      expect(row).toMatchObject({ sent_at: null, last_error: expect.stringMatching(/ECONNREFUSED|connect/i) });
    } finally {
      await smtp.start();
    }
    await smtp.waitFor((m) => m.subject === 'You are invited', 15_000);
    await settle();
    expect(bySubject('You are invited')).toHaveLength(1);
  });

  it('sends each message once with two gateway instances sharing the outbox, both of them sending', async () => {
    const first = stack.services.gateway!;
    const second = await startService('gateway', { ...first.env, PORT: String(await freePort()), OPS_PORT: String(await freePort()) });
    try {
      // A slow server: both instances are sending at the same time.
      smtp.answerDelayMs = 40;
      const subjects = Array.from({ length: 60 }, (_, i) => `Wallet code ${i}`);
      const mail = (subject: string) => ({ kind: 'wallet_code', to: 'wallet@example.com', subject, text: `Your code: ${subject}` });
      // Most in one transaction of the caller's (found by the next look), the rest on their own.
      await gatewayDb.transaction(async (manager) => {
        for (const subject of subjects.slice(0, 40)) await outbox.enqueue(mail(subject), manager);
      });
      for (const subject of subjects.slice(40)) await outbox.enqueue(mail(subject));
      await waitFor(() => subjects.every((subject) => bySubject(subject).length > 0), 30_000, 'every wallet code delivered');
      await settle();
      expect(subjects.filter((subject) => bySubject(subject).length !== 1)).toEqual([]);
      const sentBy = await Promise.all([first, second].map((instance) => sentCount(instance.opsUrl, 'wallet_code')));
      expect(sentBy[0]! + sentBy[1]!).toBe(60);
      expect(sentBy.every((count) => count > 0)).toBe(true);
    } finally {
      smtp.answerDelayMs = 0;
      await second.stop();
    }
  });

  it('refuses to start in production with the development mail page', async () => {
    const production = { ...stack.services.gateway!.env, NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'), COMMAND_SECRET: 'c'.repeat(40) };
    const refused = await exitOf(await startService('gateway', { ...production, MAIL_TRANSPORT: 'page', PORT: String(await freePort()), OPS_PORT: String(await freePort()) }, { waitReady: false }));
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('MAIL_TRANSPORT=page is a development setting');
    expect(refused.output).not.toContain(SMTP_PASSWORD.replace(' ', '%20'));
  });

  it('has no development mail page while it sends over SMTP', async () => {
    expect((await fetch(`${stack.gatewayUrl}/dev/mail`)).status).toBe(404);
    expect((await fetch(`${stack.gatewayUrl}/dev/mail?format=json`)).status).toBe(404);
  });

  describe('with MAIL_TRANSPORT=page', () => {
    let page: RunningService;

    beforeAll(async () => {
      // Another gateway on the same database that keeps mail instead of sending it (the one above still sends).
      page = await startService('gateway', { ...stack.services.gateway!.env, MAIL_TRANSPORT: 'page', PORT: String(await freePort()), OPS_PORT: String(await freePort()) });
    });

    afterAll(async () => {
      await page?.stop();
    });

    it('lists the messages newest first and shows one with its links clickable, escaped, under the checkout\'s headers', async () => {
      const older = await outbox.enqueue({ kind: 'unlock', to: 'page@example.com', subject: 'Unlock <your> account', text: 'Unlock: http://localhost:3000/unlock?t=1&u=2' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const newer = await outbox.enqueue({ kind: 'confirm_email', to: 'page@example.com', subject: 'Confirm your e-mail', text: 'Confirm: http://localhost:3000/confirm?t=9' });

      const list = await fetch(`${page.url}/dev/mail`);
      expect(list.status).toBe(200);
      expect(list.headers.get('content-type')).toContain('text/html');
      expect(list.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      expect(list.headers.get('x-frame-options')).toBe('DENY');
      expect(list.headers.get('cache-control')).toBe('no-store');
      const listed = await list.text();
      expect(listed.indexOf(`/dev/mail/${newer}`)).toBeGreaterThan(-1);
      expect(listed.indexOf(`/dev/mail/${newer}`)).toBeLessThan(listed.indexOf(`/dev/mail/${older}`));
      expect(listed).toContain('Unlock &lt;your&gt; account');

      const one = await fetch(`${page.url}/dev/mail/${older}`);
      expect(one.status).toBe(200);
      expect(await one.text()).toContain('<a href="http://localhost:3000/unlock?t=1&amp;u=2">');
      expect((await fetch(`${page.url}/dev/mail/mail_000000000000000000000000`)).status).toBe(404);
      expect((await fetch(`${page.url}/dev/mail/..%2F..%2Fetc`)).status).toBe(404);
    });

    it('answers JSON for scripts, filtered by recipient, with the links of each text', async () => {
      const json = await fetch(`${page.url}/dev/mail?to=PAGE@example.com`, { headers: { accept: 'application/json' } });
      expect(json.status).toBe(200);
      const { data } = (await json.json()) as { data: Array<{ id: string; to: string; subject: string; links: string[]; kind: string }> };
      expect(data.map((mail) => mail.subject)).toEqual(['Confirm your e-mail', 'Unlock <your> account']);
      expect(data[0]).toMatchObject({ to: 'page@example.com', kind: 'confirm_email', links: ['http://localhost:3000/confirm?t=9'] });
      const one = await fetch(`${page.url}/dev/mail/${data[1]!.id}?format=json`);
      expect(await one.json()).toMatchObject({ id: data[1]!.id, subject: 'Unlock <your> account', text: 'Unlock: http://localhost:3000/unlock?t=1&u=2' });
    });
  });
});

/** mail_sent_total of one kind, as an instance's /metrics shows it. */
async function sentCount(opsUrl: string, kind: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`mail_sent_total{kind="${kind}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}
