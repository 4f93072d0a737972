import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { deployTestToken, startAnvil, startStack, tokenBalance, type RunningAnvil, type Stack } from '@payments/testing';

const root = join(__dirname, '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run try` as a developer runs it, against this test's services. */
function runTry(env: Record<string, string>, ...options: string[]): Promise<Run> {
  return new Promise((resolve) =>
    execFile(
      'npm',
      ['run', '--silent', 'try', '--', ...options],
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

// The first run of a developer evaluating the service: one command from running services to a verified webhook.
describe('npm run try', () => {
  let stack: Stack;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack(['sessions', 'webhook-dispatcher', 'gateway'], { WEBHOOK_ALLOW_INSECURE_TARGETS: '1' });
    env = { GATEWAY_URL: stack.gatewayUrl, DATABASE_URL: stack.db.url };
  }, 120_000);

  afterAll(() => stack?.stop());

  it('prints each step as it happens and the webhook the example receiver verified, then cleans up', async () => {
    const run = await runTry(env);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('try:');
    const lines = run.stdout.trim().split('\n');
    const expected = [
      /^try: gateway http:\/\/127\.0\.0\.1:\d+ is ready$/,
      /^try: demo merchant acct_\S+, test key pay_test_/,
      /^try: POST \/api\/v1\/webhook-endpoints → 201 we_\S+ for http:\/\/127\.0\.0\.1:\d+\/webhooks \(a local target: allowed by the development setting WEBHOOK_ALLOW_INSECURE_TARGETS\)$/,
      /^try: example receiver \(examples\/webhook-receiver\) listening on http:\/\/127\.0\.0\.1:\d+\/webhooks$/,
      /^try: POST \/api\/v1\/payment-intents → 201 pi_test_\S+ \(requires_payment_method\)$/,
      /^try: checkout URL: http\S+\/checkout\/pi_test_\S+$/,
      /^try: POST \/api\/v1\/payment-intents\/pi_test_\S+\/simulate \{"result":"succeeded"\} → 200 succeeded$/,
      /^try: webhook payment_intent\.succeeded evt_\S+ for pi_test_\S+: signature verified \(X-Service-Signature\), \d+ ms after simulate$/,
      /^try: DELETE \/api\/v1\/webhook-endpoints\/we_\S+ → 200$/,
      /^try: done in \d+\.\d s$/,
    ];
    expect(lines).toHaveLength(expected.length);
    lines.forEach((line, i) => expect(line).toMatch(expected[i]!));
    // The endpoint it added is gone.
    const demo = await stack.admin('demo');
    expect((await stack.call('GET', '/api/v1/webhook-endpoints', { key: demo.test_key })).body.data).toEqual([]);
  });

  it('--invoice --fail --json: one JSON line per step, the invoice surface and its Service-* signature', async () => {
    const run = await runTry(env, '--invoice', '--fail', '--json');
    expect(run.code).toBe(0);
    const steps = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(steps.map((s) => s.step)).toEqual(['services', 'demo', 'endpoint', 'receiver', 'create', 'checkout', 'simulate', 'webhook', 'cleanup', 'done']);
    expect(steps.every((s) => s.ok === true)).toBe(true);
    expect(steps.find((s) => s.step === 'create')).toMatchObject({ status: 201, id: expect.stringMatching(/^inv_test_/), object: 'invoice' });
    expect(steps.find((s) => s.step === 'simulate')).toMatchObject({ status: 200, result: 'failed' });
    expect(steps.find((s) => s.step === 'webhook')).toMatchObject({ type: 'invoice.payment_failed', signature_verified: true, scheme: 'invoice', latency_ms: expect.any(Number) });
  });

  it('says which step failed and what to do, and exits non-zero', async () => {
    const down = await runTry({ ...env, GATEWAY_URL: 'http://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('try: FAILED at step "services": the gateway at http://127.0.0.1:1 is not ready');
    expect(down.stderr).toContain('npm start');
    const json = await runTry({ ...env, GATEWAY_URL: 'http://127.0.0.1:1' }, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ step: 'services', ok: false, remedy: expect.stringContaining('npm start') });
    const badKey = await runTry({ ...env, TRY_API_KEY: 'pay_test_nope.nope' });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain('FAILED at step "endpoint"');
    expect(await runTry(env, '--bogus')).toMatchObject({ code: 1 });
  });
});

// `--crypto`: the same first run paid on a real chain (anvil) as `npm start` runs it, the watcher counting it.
describe('npm run try -- --crypto', () => {
  let anvil: RunningAnvil;
  let stack: Stack;
  let dir: string;
  let env: Record<string, string>;
  let token: `0x${string}`;

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 1 });
    token = await deployTestToken(anvil.rpcUrl, { name: 'Try USD', symbol: 'TUSDC', decimals: 6 });
    dir = mkdtempSync(join(tmpdir(), 'try-chain-'));
    writeFileSync(join(dir, 'chain.json'), JSON.stringify({ rpc_url: anvil.rpcUrl, chain_id: anvil.chainId, tokens: [{ symbol: 'TUSDC', address: token, decimals: 6 }] }));
    const xpub = (account: number) => HDKey.fromMasterSeed(Buffer.alloc(32, account + 1)).derive(`m/44'/60'/${account}'`).publicExtendedKey;
    stack = await startStack(['sessions', 'webhook-dispatcher', 'chain-watcher', 'gateway'], {
      WEBHOOK_ALLOW_INSECURE_TARGETS: '1',
      CRYPTO_CHAINS: JSON.stringify([{ name: 'local', chain_id: anvil.chainId, rpc_url: anvil.rpcUrl, confirmations: 2, tokens: [{ symbol: 'TUSDC', address: token, decimals: 6 }] }]),
      CRYPTO_XPUB_TEST: xpub(1),
      CRYPTO_XPUB_LIVE: xpub(2),
    });
    env = { GATEWAY_URL: stack.gatewayUrl, DATABASE_URL: stack.db.url, TRY_CHAIN_FILE: join(dir, 'chain.json') };
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('chooses the token on the checkout, sends the amount to the deposit address and shows the verified webhook', async () => {
    const run = await runTry(env, '--crypto', '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const steps = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(steps.map((s) => s.step)).toEqual(['services', 'demo', 'endpoint', 'receiver', 'create', 'checkout', 'address', 'transfer', 'webhook', 'cleanup', 'done']);
    const address = steps.find((s) => s.step === 'address')!.address as `0x${string}`;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(steps.find((s) => s.step === 'transfer')).toMatchObject({ units: '25000000' });
    expect(steps.find((s) => s.step === 'webhook')).toMatchObject({ type: 'payment_intent.succeeded', signature_verified: true });
    // The money is on the chain at the intent's own address, once.
    expect(await tokenBalance(anvil.rpcUrl, token, address)).toBe(25_000_000n);
    const intent = await stack.call('GET', `/api/v1/payment-intents/${String(steps.find((s) => s.step === 'create')!.id)}`, { key: (await stack.admin('demo')).test_key });
    expect(intent.body).toMatchObject({ status: 'succeeded', crypto: { address, received_amount: '25.00', remaining_amount: '0.00', overpayment_amount: '0.00' } });
  });

  it('says what to do when there is no local chain', async () => {
    const run = await runTry({ ...env, TRY_CHAIN_FILE: join(dir, 'missing.json') }, '--crypto');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('try: FAILED at step "chain"');
    expect(run.stderr).toContain('npm start');
  });
});
