import { loadConfig } from '@payments/config';
import { PG_SESSION_OPTIONS } from '@payments/database';
import { dataSourceOptions, runMigrationsLocked } from '@payments/platform';
import { createTestDatabase, TestDatabase } from '@payments/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../src/accounts/password-hasher';
import { GatewayConfig, GATEWAY_DEFAULTS } from '../src/config';
import { MailOutbox } from '../src/mail/mail-outbox';
import { MailOutboxRepository } from '../src/mail/mail-outbox.repository';
import { GATEWAY_ENTITIES, GATEWAY_MIGRATIONS } from '../src/migrations/gateway-schema';
import { OpaqueSessionStore } from '../src/web-session/opaque-session-store';
import type { WalletSession } from '../src/wallets/domain/wallet-session';
import { WalletSignIn } from '../src/wallets/wallet-sign-in';
import { WalletsRepository } from '../src/wallets/wallets.repository';

// The wallet sign-in codes' rules against real Postgres (the gateway's schema, the real mail outbox, argon2) and
// the wallet sessions in real Redis.
describe('wallet sign-in codes', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let signIns: WalletSignIn;
  let repository: WalletsRepository;
  let nowMs: number;

  const address = () => `Customer.${randomBytes(4).toString('hex')}@Example.com`;

  /** The code in the last wallet_code mail to the address (what the customer reads). */
  async function mailedCode(email: string): Promise<string> {
    const rows = (await dataSource.query(`SELECT text, html, subject FROM gateway.mail_outbox WHERE recipient = $1 AND kind = 'wallet_code' ORDER BY created_at DESC, id DESC LIMIT 1`, [email.toLowerCase()])) as Array<{ text: string }>;
    const match = /^(\d{6})$/m.exec(rows[0]?.text ?? '');
    if (!match) throw new Error(`no code mailed to ${email}`);
    return match[1]!;
  }

  const mailsTo = async (email: string) =>
    ((await dataSource.query(`SELECT count(*)::int AS n FROM gateway.mail_outbox WHERE recipient = $1 AND kind = 'wallet_code'`, [email.toLowerCase()])) as Array<{ n: number }>)[0]!.n;

  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  beforeAll(async () => {
    db = await createTestDatabase('gw_wallets');
    const config = loadConfig(GatewayConfig, { DATABASE_URL: db.url }, GATEWAY_DEFAULTS);
    dataSource = new DataSource({ ...dataSourceOptions(config, { entities: GATEWAY_ENTITIES, migrations: GATEWAY_MIGRATIONS }), extra: { max: 8, options: PG_SESSION_OPTIONS } });
    await dataSource.initialize();
    await runMigrationsLocked(dataSource, config.DB_SCHEMA);
    repository = new WalletsRepository(dataSource, 'gateway');
    nowMs = Date.now();
    signIns = new WalletSignIn(repository, new PasswordHasher(), new MailOutbox(new MailOutboxRepository(dataSource, 'gateway')), { now: () => new Date(nowMs) });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('mails a six-digit code (stored only as its hash) that signs in once and makes the wallet', async () => {
    const email = address();
    expect(await signIns.requestCode('test', email, 'ar')).toEqual({ ok: true, email: email.toLowerCase() });
    const code = await mailedCode(email);
    const [stored] = (await dataSource.query(`SELECT code_hash FROM gateway.wallet_sign_in_codes WHERE email = $1`, [email.toLowerCase()])) as Array<{ code_hash: string }>;
    expect(stored!.code_hash).toMatch(/^\$argon2id\$/);
    expect(stored!.code_hash).not.toContain(code);
    const [mail] = (await dataSource.query(`SELECT subject, html FROM gateway.mail_outbox WHERE recipient = $1`, [email.toLowerCase()])) as Array<{ subject: string; html: string }>;
    expect(mail!.subject).toBe('[اختبار] رمز الدخول إلى محفظتك');
    expect(mail!.html).toContain(code);

    const signedIn = await signIns.verifyCode('test', email.toUpperCase(), ` ${code.slice(0, 3)} ${code.slice(3)} `);
    expect(signedIn).toEqual({ ok: true, wallet: expect.objectContaining({ id: expect.stringMatching(/^wal_test_[A-Za-z0-9]{24}$/), environment: 'test', email: email.toLowerCase() }) });
    // Once only.
    expect(await signIns.verifyCode('test', email, code)).toEqual({ ok: false, reason: 'invalid_code' });
    // The same address's next sign-in finds the same wallet; the live wallet is another one.
    nowMs += 61_000;
    await signIns.requestCode('test', email, 'en');
    const again = await signIns.verifyCode('test', email, await mailedCode(email));
    expect(again.ok && again.wallet.id).toBe(signedIn.ok && signedIn.wallet.id);
    await signIns.requestCode('live', email, 'en');
    const live = await signIns.verifyCode('live', email, await mailedCode(email));
    expect(live.ok && live.wallet.id).toMatch(/^wal_live_/);
  });

  it('refuses a code after ten minutes', async () => {
    const email = address();
    await signIns.requestCode('test', email, 'en');
    const code = await mailedCode(email);
    nowMs += 10 * 60_000;
    expect(await signIns.verifyCode('test', email, code)).toEqual({ ok: false, reason: 'expired' });
    nowMs += 1000;
  });

  it('kills a code after five wrong tries, the right one included after', async () => {
    const email = address();
    await signIns.requestCode('test', email, 'en');
    const code = await mailedCode(email);
    for (let i = 1; i <= 4; i++) expect(await signIns.verifyCode('test', email, wrong(code))).toEqual({ ok: false, reason: 'invalid_code' });
    expect(await signIns.verifyCode('test', email, 'not a code')).toEqual({ ok: false, reason: 'too_many_attempts' });
    expect(await signIns.verifyCode('test', email, code)).toEqual({ ok: false, reason: 'too_many_attempts' });
    expect(await repository.findByEmail('test', email.toLowerCase())).toBeNull();
  });

  it('five concurrent wrong tries count five (the code row is locked)', async () => {
    const email = address();
    await signIns.requestCode('test', email, 'en');
    const code = await mailedCode(email);
    await Promise.all(Array.from({ length: 5 }, () => signIns.verifyCode('test', email, wrong(code))));
    expect(await signIns.verifyCode('test', email, code)).toEqual({ ok: false, reason: 'too_many_attempts' });
  });

  it('sends one code a minute and ten a day per address, the same answer past it; a new code voids the old', async () => {
    const email = address();
    expect(await signIns.requestCode('test', email, 'en')).toMatchObject({ ok: true });
    const first = await mailedCode(email);
    // Within the minute (concurrently too): nothing more is sent, the answer is the same.
    const asks = await Promise.all(Array.from({ length: 3 }, () => signIns.requestCode('test', email, 'en')));
    expect(asks).toEqual(Array.from({ length: 3 }, () => ({ ok: true, email: email.toLowerCase() })));
    expect(await mailsTo(email)).toBe(1);
    nowMs += 60_000;
    await signIns.requestCode('test', email, 'en');
    expect(await mailsTo(email)).toBe(2);
    const second = await mailedCode(email);
    if (second !== first) expect(await signIns.verifyCode('test', email, first)).toEqual({ ok: false, reason: 'invalid_code' });
    for (let i = 0; i < 10; i++) {
      nowMs += 61_000;
      await signIns.requestCode('test', email, 'en');
    }
    expect(await mailsTo(email)).toBe(10);
    // Another environment's address is counted apart.
    await signIns.requestCode('live', email, 'en');
    expect(await mailsTo(email)).toBe(11);
    nowMs += 86_400_000;
    await signIns.requestCode('test', email, 'en');
    expect(await mailsTo(email)).toBe(12);
    expect(await signIns.verifyCode('test', email, await mailedCode(email))).toMatchObject({ ok: true });
  });

  it('refuses an address that is not one', async () => {
    expect(await signIns.requestCode('test', 'someone', 'en')).toEqual({ ok: false, reason: 'invalid_email' });
    expect(await signIns.requestCode('test', 'a@b.co\nBcc: c@d.ef', 'en')).toEqual({ ok: false, reason: 'invalid_email' });
  });
});

describe('wallet sessions in Redis', () => {
  let redis: Redis;

  beforeAll(async () => {
    const config = loadConfig(GatewayConfig, { DATABASE_URL: 'postgres://unused/unused' }, GATEWAY_DEFAULTS);
    redis = new Redis(config.REDIS_URL);
  });

  afterAll(() => redis?.disconnect());

  it('keeps a session under the hash of its id and ends it after the idle time; reads renew it', async () => {
    const store = new OpaqueSessionStore<WalletSession>(redis, `wallet-test:${randomBytes(4).toString('hex')}`, 400);
    const session: WalletSession = { csrfSecret: 's', wallets: { test: { walletId: 'wal_test_x', email: 'a@b.co', signedInAt: Date.now() } } };
    const sid = await store.create(session);
    expect(await redis.get(store.keyOf(sid))).not.toBeNull();
    expect(store.keyOf(sid)).not.toContain(sid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await store.read(sid)).toEqual(session);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Read 250 ms ago: still there (sliding), then gone after 400 ms of quiet.
    expect(await store.read(sid)).toEqual(session);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await store.read(sid)).toBeNull();
    expect(await store.read('not-a-session-id')).toBeNull();
  });
});
