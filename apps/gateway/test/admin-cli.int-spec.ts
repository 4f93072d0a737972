import argon2 from 'argon2';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Controller, Get } from '@nestjs/common';
import { createTestDatabase, REPO_ROOT, TestDatabase } from '@payments/testing';
import { DataSource } from 'typeorm';
import { AuthContext } from '../src/auth/auth-context';
import { Auth } from '../src/auth/auth.decorator';
import { bearer, jsonOf, sleep, startTestApi, TestApi } from './auth.harness';

const CLI = join(REPO_ROOT, 'dist', 'apps', 'gateway', 'src', 'admin', 'cli.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

@Controller('api/v1/whoami')
class WhoAmIController {
  @Get()
  whoami(@Auth() auth: AuthContext): AuthContext {
    return auth;
  }
}

// The built CLI as operators run it (`npm run admin -- ...` is `node dist/apps/gateway/src/admin/cli.js ...`).
describe('admin CLI', () => {
  let db: TestDatabase;
  let api: TestApi | undefined;
  let sql: DataSource;

  function admin(...args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, timeout: 30000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async function adminJson(...args: string[]): Promise<Record<string, unknown>> {
    const result = await admin(...args, '--json');
    if (result.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(result.stdout);
  }

  const merchantRow = async (id: string) => (await sql.query(`SELECT * FROM gateway.merchants WHERE id = $1`, [id]))[0];

  beforeAll(async () => {
    db = await createTestDatabase('gw_admin');
    sql = await db.dataSource('public');
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('creates an unverified merchant with a test key only, on a fresh database', async () => {
    const created = await adminJson('merchant', 'create', '--name', 'Corner Shop', '--email', 'corner@example.com');
    expect(created).toEqual({ merchant_id: expect.stringMatching(/^acct_[A-Za-z0-9]{24}$/), test_key: expect.stringMatching(/^pay_test_\w+\.\w+$/) });
    const row = await merchantRow(created.merchant_id as string);
    expect(row).toMatchObject({ name: 'Corner Shop', email: 'corner@example.com', verification_status: 'unverified' });
    expect(row.enabled_methods).toEqual(['togo', 'lahza', 'crypto']);
  });

  it('creates a verified merchant with both keys, and the keys authenticate', async () => {
    const created = await adminJson('merchant', 'create', '--name', 'Big Shop', '--email', 'big@example.com', '--verified');
    expect(Object.keys(created).sort()).toEqual(['live_key', 'merchant_id', 'test_key']);
    expect(created.live_key).toMatch(/^pay_live_\w+\.\w+$/);

    api = await startTestApi(db, [WhoAmIController]);
    for (const [token, environment] of [[created.test_key, 'test'], [created.live_key, 'live']] as const) {
      const res = await fetch(`${api.url}/api/v1/whoami`, { headers: bearer(token as string) });
      expect(res.status).toBe(200);
      expect(await jsonOf(res)).toMatchObject({ merchantId: created.merchant_id, environment });
    }
  });

  it('refuses a second merchant with the same e-mail, on stderr with exit code 1', async () => {
    const result = await admin('merchant', 'create', '--name', 'Again', '--email', 'CORNER@example.com', '--json');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .*already exists/);
  });

  it('creates a live key only after verification', async () => {
    const { merchant_id: id } = await adminJson('merchant', 'create', '--name', 'Later', '--email', 'later@example.com');
    const refused = await admin('key', 'create', '--merchant', id as string, '--env', 'live');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*verified/);

    expect(await adminJson('merchant', 'verify', '--id', id as string)).toEqual({ merchant_id: id, verification_status: 'verified' });
    const key = await adminJson('key', 'create', '--merchant', id as string, '--env', 'live', '--name', 'Server');
    expect(key).toMatchObject({ merchant_id: id, environment: 'live', name: 'Server', key: expect.stringMatching(/^pay_live_/), revoked_at: null });
    expect(key.key).toContain(`pay_live_${key.key_id}.`);
  });

  it('revokes a key: the gateway refuses it within a second', async () => {
    const { merchant_id: id } = await adminJson('merchant', 'create', '--name', 'Revoked', '--email', 'revoked@example.com');
    const key = await adminJson('key', 'create', '--merchant', id as string, '--env', 'test');
    api ??= await startTestApi(db, [WhoAmIController]);
    expect((await fetch(`${api.url}/api/v1/whoami`, { headers: bearer(key.key as string) })).status).toBe(200);

    const revoked = await adminJson('key', 'revoke', '--key', key.key_id as string);
    expect(revoked).toEqual({ key_id: key.key_id, merchant_id: id, revoked_at: expect.any(String) });
    // Revoking again keeps the first time; the whole key is accepted in place of its id.
    expect(await adminJson('key', 'revoke', '--key', key.key as string)).toEqual(revoked);
    await sleep(1000);
    expect((await fetch(`${api.url}/api/v1/whoami`, { headers: bearer(key.key as string) })).status).toBe(401);
  });

  it('sets per-merchant rate limits, fee rates and payment methods', async () => {
    const { merchant_id: id } = await adminJson('merchant', 'create', '--name', 'Tuned', '--email', 'tuned@example.com');
    expect(await adminJson('merchant', 'limits', '--id', id as string, '--live', '500', '--test', '5')).toEqual({
      merchant_id: id,
      rate_limit_live_per_sec: 500,
      rate_limit_test_per_sec: 5,
    });
    expect(await adminJson('merchant', 'limits', '--id', id as string, '--live', 'default')).toMatchObject({
      rate_limit_live_per_sec: null,
      rate_limit_test_per_sec: 5,
    });
    expect(await merchantRow(id as string)).toMatchObject({ rate_limit_live_per_sec: null, rate_limit_test_per_sec: 5 });
    expect((await admin('merchant', 'limits', '--id', id as string, '--test', '0')).code).toBe(1);

    expect(await adminJson('merchant', 'methods', '--id', id as string, '--methods', 'crypto,togo')).toEqual({
      merchant_id: id,
      enabled_methods: ['togo', 'crypto'],
    });
    const bad = await admin('merchant', 'methods', '--id', id as string, '--methods', 'togo,paypal');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/paypal/);

    expect(await adminJson('merchant', 'fees', '--id', id as string, '--lahza', '120', '--togo', '0')).toEqual({
      merchant_id: id,
      fee_overrides: { lahza: 120, togo: 0 },
      // togo is a service-balance payment, as wallet is: a rate for togo alone sets both.
      fee_schedule_bps: { togo: 0, wallet: 0, crypto: 150, lahza: 120 },
    });
    expect(await adminJson('merchant', 'fees', '--id', id as string, '--togo', 'default')).toMatchObject({ fee_overrides: { lahza: 120 } });
    expect(await merchantRow(id as string)).toMatchObject({ fee_overrides: { lahza: 120 } });
    for (const args of [['--lahza', '10001'], ['--lahza', '-5'], ['--lahza', '1.5'], []]) {
      expect((await admin('merchant', 'fees', '--id', id as string, ...args)).code).toBe(1);
    }
    expect(await adminJson('merchant', 'fees', '--id', id as string, '--lahza', 'default')).toMatchObject({ fee_overrides: null });

    const shown = await adminJson('merchant', 'show', '--id', id as string);
    expect(shown).toMatchObject({ merchant_id: id, enabled_methods: ['togo', 'crypto'], keys: [expect.objectContaining({ environment: 'test' })] });
    expect(JSON.stringify(shown)).not.toMatch(/pay_test_/);
  });

  it('answers exit code 1 for an unknown merchant and for bad usage', async () => {
    const unknown = await admin('merchant', 'verify', '--id', 'acct_000000000000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: no merchant/);
    expect((await admin('merchant', 'create', '--name', 'No email')).code).toBe(1);
    expect((await admin('key', 'create', '--merchant', 'acct_x', '--env', 'staging')).code).toBe(1);
  });

  it('demo: one verified demo merchant, a fresh test key each time; with --dashboard a fresh dashboard password', async () => {
    const first = await adminJson('demo', '--dashboard');
    const second = await adminJson('demo', '--dashboard');
    // Without --dashboard (npm run try) the password printed last still stands.
    const keyOnly = await adminJson('demo');
    expect(Object.keys(keyOnly).sort()).toEqual(['email', 'merchant_id', 'name', 'test_key']);
    expect(first).toEqual({
      merchant_id: expect.stringMatching(/^acct_/),
      name: 'Demo Store',
      email: 'demo@example.com',
      test_key: expect.stringMatching(/^pay_test_/),
      dashboard_email: 'demo@example.com',
      dashboard_password: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    expect(second.merchant_id).toBe(first.merchant_id);
    expect(second.test_key).not.toBe(first.test_key);
    expect(await merchantRow(first.merchant_id as string)).toMatchObject({ verification_status: 'verified' });
    // One confirmed owner, whose password is the last one printed.
    const users = await sql.query(`SELECT role, email_confirmed_at, password_hash FROM gateway.users WHERE merchant_id = $1`, [first.merchant_id]);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ role: 'owner', email_confirmed_at: expect.any(Date) });
    expect(await argon2.verify(users[0].password_hash, second.dashboard_password as string)).toBe(true);
    expect(await argon2.verify(users[0].password_hash, first.dashboard_password as string)).toBe(false);
  });
});
