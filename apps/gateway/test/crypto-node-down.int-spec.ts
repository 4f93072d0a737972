// The chain's RPC node down for over a minute, on the system as it runs: sessions, the chain watcher process and
// the gateway, anvil with --state (stopped with its chain, started again on the same port). Meanwhile payment
// commands answer as usual: creates, simulates of other intents, the checkout's crypto choice (an address handed
// out while the node is away). Afterwards the watcher catches up: a transfer mined just before the outage and one
// sent after it are each counted exactly once.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { HDKey } from 'viem/accounts';
import { chainHead, deployTestToken, mineBlocks, sendToken, startAnvil, startStack, tokenBalance, type RunningAnvil, type Stack, type TestMerchant } from '@payments/testing';

type Address = `0x${string}`;
const CHAIN_ID = 31_337;
const CONFIRMATIONS = 3;
const OUTAGE_MS = 65_000;
/** What a caller would wait at most for an answer (the client's per-attempt timeout is longer still). */
const REQUEST_TIMEOUT_MS = 10_000;

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The answer, or a failure when none came within the request timeout. */
function answered<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

describe('crypto: the chain node down for a minute', () => {
  const statePath = join(tmpdir(), `anvil-node-down-${process.pid}-${Date.now()}.json`);
  let anvil: RunningAnvil;
  let usdt: Address;
  let stack: Stack;
  let merchant: TestMerchant;
  let db: Client;

  const api = (method: string, path: string, body?: object) =>
    answered(`${method} ${path}`, stack.call(method, path, { key: merchant.test_key, body, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {} }));

  async function create(amount = '10.00'): Promise<string> {
    const res = await api('POST', '/api/v1/payment-intents', { amount, currency: 'USD' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  /** The customer picks USDT on the checkout: a 303 to the deposit page, and the intent has its address. */
  async function chooseCrypto(id: string): Promise<Address> {
    const res = await answered(
      `choose crypto for ${id}`,
      fetch(`${stack.gatewayUrl}/checkout/${id}/crypto/address`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ network: String(CHAIN_ID), token: usdt, attempt: randomUUID() }).toString(),
      }),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/checkout/${id}/crypto?network=${CHAIN_ID}&token=${usdt}`);
    const intent = await api('GET', `/api/v1/payment-intents/${id}`);
    expect(intent.body.crypto.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    return intent.body.crypto.address as Address;
  }

  const transfersOf = async (id: string) =>
    (await db.query(`SELECT count(*)::int AS n FROM sessions.events WHERE stream_id = $1 AND type = 'PaymentIntentCryptoTransferReceived'`, [id])).rows[0].n as number;
  const stepFailures = async () => {
    const text = await (await fetch(`${stack.services['chain-watcher']!.opsUrl}/metrics`)).text();
    return Number(/^chain_watcher_step_failures_total\{chain="anvil"\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: CHAIN_ID, statePath });
    usdt = await deployTestToken(anvil.rpcUrl, { name: 'Test Tether', symbol: 'USDT', decimals: 6 });
    const chains = [{ name: 'anvil', chain_id: CHAIN_ID, rpc_url: anvil.rpcUrl, confirmations: CONFIRMATIONS, environments: ['test'], tokens: [{ symbol: 'USDT', address: usdt, decimals: 6 }] }];
    const crypto = { CRYPTO_CHAINS: JSON.stringify(chains), CRYPTO_XPUB_TEST: HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey };
    stack = await startStack(
      ['sessions', 'ledger', 'chain-watcher', 'gateway'],
      { RATE_LIMIT_TEST_PER_SEC: '10000' },
      { sessions: crypto, 'chain-watcher': { ...crypto, CHAIN_POLL_INTERVAL_MS: '100', CHAIN_RETRY_MAX_MS: '2000' } },
    );
    merchant = await stack.createMerchant({ verified: true });
    db = new Client({ connectionString: stack.db.url });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    await anvil?.stop();
    rmSync(statePath, { force: true });
  });

  it('payment commands answer as usual while the node is down; then the watcher catches up and counts each transfer once', async () => {
    const before = await create();
    const beforeAddress = await chooseCrypto(before);
    // Mined just before the outage, short of its confirmations.
    await sendToken(anvil.rpcUrl, usdt, beforeAddress, 10_000_000n);
    const minedAt = await chainHead(anvil.rpcUrl);
    await anvil.stop();
    const down = Date.now();

    // A round of commands about every 10 s for as long as the node is down.
    let rounds = 0;
    let during: string | undefined;
    while (Date.now() - down < OUTAGE_MS) {
      const started = Date.now();
      const created = await create('5.00');
      const simulated = await api('POST', `/api/v1/payment-intents/${created}/simulate`, { result: 'succeeded', method: 'togo' });
      expect(simulated.status).toBe(200);
      expect(simulated.body.status).toBe('succeeded');
      const choosing = await create();
      await chooseCrypto(choosing);
      during ??= choosing;
      rounds++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - started))));
    }
    expect(rounds).toBeGreaterThanOrEqual(6);
    // The watcher did meet the outage (its steps failed, and it kept retrying).
    expect(await stepFailures()).toBeGreaterThan(0);
    expect((await api('GET', `/api/v1/payment-intents/${before}`)).body).toMatchObject({ status: 'requires_payment_method', crypto: { received_amount: '0.00' } });

    await anvil.restart();
    // The chain came back with its state: the transfer is still in its block.
    expect((await chainHead(anvil.rpcUrl)).hash).toBe(minedAt.hash);
    expect(await tokenBalance(anvil.rpcUrl, usdt, beforeAddress)).toBe(10_000_000n);

    // A transfer after the outage, to the address chosen while the node was down; then the confirmations.
    const duringAddress = (await api('GET', `/api/v1/payment-intents/${during!}`)).body.crypto.address as Address;
    await sendToken(anvil.rpcUrl, usdt, duringAddress, 10_000_000n);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    const paid = async (id: string) => (await api('GET', `/api/v1/payment-intents/${id}`)).body.status === 'succeeded';
    await until(async () => (await paid(before)) && (await paid(during!)), 'both intents paid after the node came back');

    // More blocks and a few more steps: still once each.
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS + 2);
    const head = (await chainHead(anvil.rpcUrl)).number;
    await until(async () => {
      const row = (await db.query(`SELECT next_block::text AS n FROM sessions.chain_watch_progress WHERE chain_id = $1`, [CHAIN_ID])).rows[0] as { n: string } | undefined;
      return row !== undefined && BigInt(row.n) > head;
    }, 'the watcher caught up with the head');
    for (const id of [before, during!]) {
      expect((await api('GET', `/api/v1/payment-intents/${id}`)).body).toMatchObject({
        status: 'succeeded',
        payment_method: 'crypto',
        crypto: { received_amount: '10.00', remaining_amount: '0.00', overpayment_amount: '0.00' },
      });
      expect(await transfersOf(id)).toBe(1);
    }
  }, 240_000);
});
