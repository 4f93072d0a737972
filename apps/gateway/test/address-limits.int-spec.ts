import { freePort, startStack, type Stack } from '@payments/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import type { DataSource } from 'typeorm';
import { AddressLimits } from '../src/rate-limit/address-limits';
import { createUser } from './dashboard.harness';

// The per-address limits of the forms anyone may post (sign-in, sign-up, reset, wallet codes) through a real
// gateway, Redis and Postgres, as a browser posts them: the address is the one the proxy in front names
// (TRUST_PROXY=1), so each test speaks from addresses of its own.
describe('per-address limits on the public forms', () => {
  let stack: Stack;
  let url: string;
  let merchantId: string;
  let db: DataSource;
  const FAILURES = 3;
  const MAILS = 2;

  /** A browser at one client address: its cookies, the forms' tokens it was given, and its posts. */
  class Browser {
    private readonly cookies = new Map<string, string>();

    constructor(readonly address: string) {}

    async get(path: string): Promise<{ status: number; html: string; csrf: string }> {
      const response = await this.send(path, { method: 'GET' });
      const html = await response.text();
      return { status: response.status, html, csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '' };
    }

    /** Posts `fields` with the token of the form page `from`, as the page's own form would. */
    async post(from: string, path: string, fields: Record<string, string>): Promise<{ status: number; html: string; location: string; retryAfter: string | null }> {
      const response = await this.submit((await this.get(from)).csrf, path, fields);
      return { status: response.status, html: await response.text(), location: response.headers.get('location') ?? '', retryAfter: response.headers.get('retry-after') };
    }

    /** Posts with a token already in hand (several at once); answers the status. */
    async postWith(csrf: string, path: string, fields: Record<string, string>): Promise<number> {
      const response = await this.submit(csrf, path, fields);
      await response.arrayBuffer();
      return response.status;
    }

    private submit(csrf: string, path: string, fields: Record<string, string>): Promise<Response> {
      return this.send(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
    }

    private async send(path: string, init: RequestInit): Promise<Response> {
      const headers = { ...(init.headers as Record<string, string>), 'x-forwarded-for': this.address, cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
      const response = await fetch(`${url}${path}`, { ...init, headers, redirect: 'manual' });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair!.indexOf('=');
        this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      return response;
    }
  }

  // A client address of its own for each browser (the limits' keys are this stack's namespace's alone).
  let clients = 0;
  const address = () => `198.51.100.${++clients}`;
  const mailsTo = async (email: string) =>
    ((await db.query(`SELECT count(*)::int AS n FROM gateway.mail_outbox WHERE lower(recipient) = lower($1)`, [email])) as Array<{ n: number }>)[0]!.n;
  const email = (what: string) => `${what}-${randomBytes(5).toString('hex')}@example.com`;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    stack = await startStack(['gateway'], {}, {
      gateway: {
        PORT: String(port),
        PUBLIC_BASE_URL: url,
        TRUST_PROXY: '1',
        SIGN_IN_FAILURES_PER_ADDRESS: String(FAILURES),
        FORM_MAILS_PER_ADDRESS: String(MAILS),
        WALLET_CODE_FAILURES_PER_ADDRESS: String(FAILURES),
        WALLET_CODES_PER_ADDRESS: String(MAILS),
        ADDRESS_LIMIT_WINDOW_SECONDS: '600',
      },
    });
    merchantId = (await stack.createMerchant()).merchant_id;
    db = await stack.db.dataSource('gateway');
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses an address past its failed sign-ins on any account, before the password is checked, while another address signs in', async () => {
    const user = await createUser(stack, merchantId, 'owner');
    const others = [await createUser(stack, merchantId, 'developer'), await createUser(stack, merchantId, 'viewer')];
    const attacker = new Browser(address());
    // Guesses spread over accounts: no account reaches its own lock-out.
    for (let i = 0; i < FAILURES; i++) {
      const guess = await attacker.post('/dashboard/login', '/dashboard/login', { email: others[i % 2]!.email, password: `wrong-${i}-password` });
      expect(guess.status).toBe(401);
    }
    const refused = await attacker.post('/dashboard/login', '/dashboard/login', { email: user.email, password: user.password });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    expect(refused.html).toContain('Too many failed sign-ins from your network');
    // Nothing was checked: the right password made no session and the account counted no failure.
    expect(refused.location).toBe('');
    const [row] = (await db.query(`SELECT failed_logins FROM gateway.users WHERE id = $1`, [user.id])) as Array<{ failed_logins: number }>;
    expect(row!.failed_logins).toBe(0);
    // Operators see it: one log line when the address met its limit, and each refusal counted.
    const gateway = stack.services.gateway!;
    expect(gateway.output().match(/address limit reached/g)).toHaveLength(1);
    expect(await (await fetch(`${gateway.opsUrl}/metrics`)).text()).toContain('address_limit_refusals_total{limit="sign_in_failures"} 1');

    const colleague = new Browser(address());
    const signedIn = await colleague.post('/dashboard/login', '/dashboard/login', { email: user.email, password: user.password });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toMatch(/^\/dashboard/);
  });

  it('counts guesses sent at once each, and gives a right password’s attempt back', async () => {
    const user = await createUser(stack, merchantId, 'developer');
    const guesser = new Browser(address());
    // Signing in right does not use the allowance: three in a row, then the failures still have all of it.
    for (let i = 0; i < FAILURES; i++) expect((await guesser.post('/dashboard/login', '/dashboard/login', { email: user.email, password: user.password })).status).toBe(303);
    const { csrf } = await guesser.get('/dashboard/login');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => guesser.postWith(csrf, '/dashboard/login', { email: `nobody-${i}@example.com`, password: `guess-${i}-of-ten` })),
    );
    expect(answers.filter((status) => status === 401)).toHaveLength(FAILURES);
    expect(answers.filter((status) => status === 429)).toHaveLength(10 - FAILURES);
  });

  it('counts wrong second steps too, and refuses even the right code past the limit', async () => {
    const user = await createUser(stack, merchantId, 'owner');
    // Two-step sign-in turned on through the Security page, as the user would.
    const owner = new Browser(address());
    expect((await owner.post('/dashboard/login', '/dashboard/login', { email: user.email, password: user.password })).status).toBe(303);
    const setup = await owner.post('/dashboard/test/security', '/dashboard/test/security/totp/start', {});
    const secret = /id="totp-secret" data-secret>([A-Z2-7]+)</.exec(setup.html)![1]!;
    const now = () => Math.floor(Date.now() / 1000);
    expect((await owner.post('/dashboard/test/security', '/dashboard/test/security/totp/enable', { code: await generate({ secret, epoch: now() }) })).status).toBe(201);

    const guesser = new Browser(address());
    expect((await guesser.post('/dashboard/login', '/dashboard/login', { email: user.email, password: user.password })).html).toContain('login/second-factor');
    for (let i = 0; i < FAILURES; i++) expect((await guesser.post('/dashboard/login', '/dashboard/login/second-factor', { code: '000000' })).status).toBe(401);
    const refused = await guesser.post('/dashboard/login', '/dashboard/login/second-factor', { code: await generate({ secret, epoch: now() + 30 }) });
    expect(refused.status).toBe(429);
    expect(refused.location).toBe('');
  });

  it('counts an address’s mails across sign-up, confirmation and reset, sends none past the limit, and counts wallet codes apart', async () => {
    const client = new Browser(address());
    const reset = (await createUser(stack, merchantId, 'viewer')).email;
    expect((await client.post('/dashboard/forgot-password', '/dashboard/forgot-password', { email: reset })).status).toBe(200);
    expect((await client.post('/dashboard/login', '/dashboard/confirm/resend', { email: reset })).status).toBe(200);
    expect(await mailsTo(reset)).toBe(1);

    const signUp = email('signup');
    const refused = await client.post('/dashboard/signup', '/dashboard/signup', { email: signUp, business_name: 'Flood Ltd', password: 'long enough password' });
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many e-mails asked for from your network');
    expect(await db.query(`SELECT id FROM gateway.users WHERE lower(email) = lower($1)`, [signUp])).toEqual([]);
    expect((await client.post('/dashboard/forgot-password', '/dashboard/forgot-password', { email: reset })).status).toBe(429);
    expect((await client.post('/dashboard/login', '/dashboard/confirm/resend', { email: reset })).status).toBe(429);
    expect(await mailsTo(reset)).toBe(1);
    expect(await mailsTo(signUp)).toBe(0);

    // The checkout's customers have their own allowance: a merchant's forms used up leave it whole, and past it
    // the wallet form says why and nothing is mailed.
    const codes = Array.from({ length: MAILS + 1 }, () => email('wallet'));
    for (const to of codes.slice(0, MAILS)) expect((await client.post('/wallet/test', '/wallet/test/code', { email: to, lang: 'en', from: 'wallet' })).location).toBe('/wallet/test');
    const walletRefused = await client.post('/wallet/test', '/wallet/test/code', { email: codes[MAILS]!, lang: 'ar', from: 'wallet' });
    expect(walletRefused.location).toBe('/wallet/test?wallet_error=too_many_requests&lang=ar');
    expect(await Promise.all(codes.map(mailsTo))).toEqual([...Array<number>(MAILS).fill(1), 0]);
    expect((await client.get('/wallet/test?wallet_error=too_many_requests&lang=ar')).html).toContain('محاولات دخول أو طلبات رموز كثيرة من شبكتك');
  });

  it('counts one IPv6 client by its /64', async () => {
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:1`;
    for (let i = 1; i <= MAILS; i++) {
      expect((await new Browser(`${prefix}::${i}`).post('/dashboard/forgot-password', '/dashboard/forgot-password', { email: email('v6') })).status).toBe(200);
    }
    expect((await new Browser(`${prefix}::beef`).post('/dashboard/forgot-password', '/dashboard/forgot-password', { email: email('v6') })).status).toBe(429);
    expect((await new Browser(`${prefix.replace(/:1$/, ':2')}::1`).post('/dashboard/forgot-password', '/dashboard/forgot-password', { email: email('v6') })).status).toBe(200);
  });

  it('refuses wallet codes from an address past its failed sign-ins, even the right one', async () => {
    const customer = new Browser(address());
    const wallet = email('customer');
    expect((await customer.post('/wallet/test', '/wallet/test/code', { email: wallet, lang: 'en', from: 'wallet' })).location).toBe('/wallet/test');
    const [mail] = (await db.query(`SELECT text FROM gateway.mail_outbox WHERE recipient = $1 AND kind = 'wallet_code'`, [wallet])) as Array<{ text: string }>;
    const right = /^(\d{6})$/m.exec(mail!.text)![1]!;
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < FAILURES; i++) {
      expect((await customer.post('/wallet/test', '/wallet/test/sign-in', { code: wrong, lang: 'en', from: 'wallet' })).location).toBe('/wallet/test?wallet_error=invalid_code');
    }
    expect((await customer.post('/wallet/test', '/wallet/test/sign-in', { code: right, lang: 'en', from: 'wallet' })).location).toBe('/wallet/test?wallet_error=too_many_requests');
    expect((await customer.get('/wallet/test')).html).not.toContain('Signed in as');
  });
});

// While Redis does not answer, each instance still counts (in memory): the limits do not fail open.
describe('per-address limits without Redis', () => {
  it('still refuses past the limit', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const limits = new AddressLimits(unreachable, { allowances: { sign_in_failures: 2, mails: 1, wallet_sign_in_failures: 2, wallet_codes: 1 }, windowSeconds: 60, namespace: 'no-redis' });
    expect(await limits.take('mails', '192.0.2.7')).toBeNull();
    expect(await limits.take('mails', '192.0.2.7')).toEqual({ retryAfterSeconds: expect.any(Number) });
    expect(await limits.take('sign_in_failures', '192.0.2.7')).toBeNull();
    await limits.giveBack('sign_in_failures', '192.0.2.7');
    expect(await limits.take('sign_in_failures', '192.0.2.7')).toBeNull();
    expect(await limits.take('sign_in_failures', '192.0.2.7')).toBeNull();
    expect(await limits.take('sign_in_failures', '::ffff:192.0.2.7')).toEqual({ retryAfterSeconds: expect.any(Number) });
    unreachable.disconnect();
  });
});
