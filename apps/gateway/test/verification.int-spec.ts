import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Controller, Get } from '@nestjs/common';
import { createTestDatabase, REPO_ROOT, startStack, Stack, TestDatabase } from '@payments/testing';
import { AuthContext } from '../src/auth/auth-context';
import { Auth } from '../src/auth/auth.decorator';
import { MerchantAccountError } from '../src/merchants/merchant-account.error';
import { bearer, jsonOf, sleep, startTestApi, TestApi } from './auth.harness';

const CLI = join(REPO_ROOT, 'dist', 'apps', 'gateway', 'src', 'admin', 'cli.js');
const DETAILS = { businessName: 'Corner Shop LLC', country: 'ps', ownerName: 'Lina Haddad', contact: '+970 59 123 4567' };

@Controller('api/v1/whoami')
class WhoAmIController {
  @Get()
  whoami(@Auth() auth: AuthContext): AuthContext {
    return auth;
  }
}

// unverified -> pending -> verified | rejected (with a reason; resubmission allowed), decided with the built admin CLI.
describe('identity verification', () => {
  let db: TestDatabase;
  let api: TestApi;

  function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'warn' } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async function adminJson(...args: string[]): Promise<Record<string, any>> {
    const result = await admin(...args, '--json');
    if (result.code !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  const whoami = (token: string) => fetch(`${api.url}/api/v1/whoami`, { headers: bearer(token) });

  beforeAll(async () => {
    db = await createTestDatabase('gw_verification');
    api = await startTestApi(db, [WhoAmIController]);
  });

  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it('submission: each field checked; unverified -> pending; nothing to submit while pending', async () => {
    const { merchant } = await api.accounts.createMerchant({ name: 'Submitter', email: 'submitter@example.com' });
    const refused = await api.accounts.submitVerification(merchant.id, { ...DETAILS, country: 'XX' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MerchantAccountError);
    expect(refused).toMatchObject({ reason: 'invalid', field: 'country' });

    const pending = await api.accounts.submitVerification(merchant.id, DETAILS);
    expect(pending).toMatchObject({ verificationStatus: 'pending', country: 'PS', ownerName: 'Lina Haddad', verificationSubmittedAt: expect.any(Date), verificationDecidedAt: null });
    await expect(api.accounts.submitVerification(merchant.id, DETAILS)).rejects.toMatchObject({ reason: 'conflict' });
  });

  it('the operator rejects with a reason (shown by merchant show), the merchant submits again, the operator verifies', async () => {
    const { merchant } = await api.accounts.createMerchant({ name: 'Rejected', email: 'rejected@example.com' });
    await api.accounts.submitVerification(merchant.id, DETAILS);

    expect((await admin('merchant', 'reject', '--id', merchant.id, '--reason', '   ', '--json')).code).toBe(1);
    expect((await admin('merchant', 'reject', '--id', merchant.id, '--reason', 'x'.repeat(501), '--json')).code).toBe(1);
    expect((await admin('merchant', 'reject', '--id', merchant.id, '--json')).code).toBe(1);
    expect(await adminJson('merchant', 'reject', '--id', merchant.id, '--reason', 'The owner name does not match the registry')).toEqual({
      merchant_id: merchant.id,
      verification_status: 'rejected',
      rejection_reason: 'The owner name does not match the registry',
    });
    const shown = await adminJson('merchant', 'show', '--id', merchant.id);
    expect(shown).toMatchObject({
      verification_status: 'rejected',
      verification: { business_name: 'Corner Shop LLC', country: 'PS', owner_name: 'Lina Haddad', contact: '+970 59 123 4567', rejection_reason: 'The owner name does not match the registry' },
    });
    expect((await admin('merchant', 'show', '--id', merchant.id)).stdout).toContain('reason: The owner name does not match the registry');

    const again = await api.accounts.submitVerification(merchant.id, { ...DETAILS, ownerName: 'Lina M. Haddad' });
    expect(again).toMatchObject({ verificationStatus: 'pending', rejectionReason: null, ownerName: 'Lina M. Haddad' });
    // `merchant verify` answers as it always has.
    expect(await adminJson('merchant', 'verify', '--id', merchant.id)).toEqual({ merchant_id: merchant.id, verification_status: 'verified' });
    expect((await admin('merchant', 'verify', '--id', merchant.id)).stdout).toBe(`Merchant ${merchant.id} is verified.\n`);
    expect(await adminJson('merchant', 'show', '--id', merchant.id)).toMatchObject({ verification: { decided_at: expect.any(String), rejection_reason: null } });
    await expect(api.accounts.submitVerification(merchant.id, DETAILS)).rejects.toMatchObject({ reason: 'conflict' });
  });

  it('live keys wait for verification; verify and reject reach the API within a second', async () => {
    const { merchant, testKey } = await api.accounts.createMerchant({ name: 'Going live', email: 'live@example.com' });
    expect((await whoami(testKey.token)).status).toBe(200);
    await expect(api.accounts.createKey(merchant.id, 'live')).rejects.toMatchObject({ reason: 'not_verified' });

    await adminJson('merchant', 'verify', '--id', merchant.id);
    const live = await api.accounts.createKey(merchant.id, 'live');
    expect((await whoami(live.token)).status).toBe(200); // now cached as verified

    await adminJson('merchant', 'reject', '--id', merchant.id, '--reason', 'Registry lookup failed');
    await sleep(1000);
    const refused = await whoami(live.token);
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error.code).toBe('account_not_verified');
    expect((await whoami(testKey.token)).status).toBe(200);

    await adminJson('merchant', 'verify', '--id', merchant.id);
    await sleep(1000);
    expect((await whoami(live.token)).status).toBe(200);
  });

  it('VERIFICATION_AUTO_APPROVE=1 verifies a submission at once', async () => {
    const autoDb = await createTestDatabase('gw_autoapprove');
    const auto = await startTestApi(autoDb, [WhoAmIController], { VERIFICATION_AUTO_APPROVE: '1' });
    try {
      const { merchant } = await auto.accounts.createMerchant({ name: 'Auto', email: 'auto@example.com' });
      expect(await auto.accounts.submitVerification(merchant.id, DETAILS)).toMatchObject({ verificationStatus: 'verified', verificationDecidedAt: expect.any(Date) });
      await expect(auto.accounts.createKey(merchant.id, 'live')).resolves.toMatchObject({ token: expect.stringMatching(/^pay_live_/) });
    } finally {
      await auto.close();
      await autoDb.drop();
    }
  });
});

// The real gateway: every live route of the API (as its OpenAPI document lists them) refuses a live key of a merchant
// that is not verified, before anything else happens.
describe('live API of an unverified merchant', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(['sessions', 'gateway']);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 403 account_not_verified on every /api/v1 route, live invoices included; test keys work', async () => {
    const merchant = await stack.createMerchant({ verified: true });
    await stack.admin('merchant', 'reject', '--id', merchant.merchant_id, '--reason', 'Documents expired');
    await sleep(1000);
    const doc = (await stack.call('GET', '/openapi.json')).body;
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x_0000')] as const));
    expect(routes.map(([, path]) => path)).toContain('/api/v1/invoices');
    expect(routes.length).toBeGreaterThan(10);
    for (const [method, path] of routes) {
      const res = await stack.call(method, path, { key: merchant.live_key!, body: method === 'GET' || method === 'DELETE' ? undefined : {}, headers: { 'idempotency-key': `k-${method}-${path}` } });
      expect([method, path, res.status, res.body?.error?.code]).toEqual([method, path, 403, 'account_not_verified']);
    }
    const created = await stack.call('POST', '/api/v1/invoices', {
      key: merchant.test_key,
      body: { amount: '10.00', currency: 'USD' },
      headers: { 'idempotency-key': 'test-invoice' },
    });
    expect(created.status).toBe(201);
  });
});
