// The chain watcher as it runs: its own process (the built entry point) with sessions' real ports, on a real anvil
// and Postgres: its probes and metrics, a payment through sessions' change path, and a kill -9 mid-way after which
// the next process counts each transfer once.
import { anvilDevAccount, freePort, deployTestToken, mineBlocks, sendToken, startAnvil, startService, type RunningAnvil, type RunningService } from '@payments/testing';
import type { DepositAddresses } from '../src/crypto/deposit-addresses';
import { createSessions } from '../src/sessions.composition';
import { createHarness, intentCommand, testMerchant, type SessionsHarness } from './support/sessions-harness';

const SCHEMA = 'sessions';

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the chain watcher process', () => {
  let h: SessionsHarness;
  let anvil: RunningAnvil;
  let watcher: RunningService | undefined;

  beforeAll(async () => {
    h = await createHarness();
    anvil = await startAnvil({ chainId: 42_111 });
  });
  afterAll(async () => {
    await watcher?.stop();
    await anvil?.stop();
    await h?.close();
  });

  it('serves its probes and metrics, pays an intent through sessions, and after a kill -9 counts each transfer once', async () => {
    const token = await deployTestToken(anvil.rpcUrl, { name: 'Test USD Coin', symbol: 'USDC', decimals: 6 });
    const chains = [{ name: 'anvil', chain_id: 42_111, rpc_url: anvil.rpcUrl, confirmations: 2, environments: ['test'], tokens: [{ symbol: 'USDC', address: token, decimals: 6 }] }];
    const env = {
      PORT: String(await freePort()),
      DATABASE_URL: h.db.url,
      KAFKA_NAMESPACE: h.namespace,
      CRYPTO_CHAINS: JSON.stringify(chains),
      CHAIN_POLL_INTERVAL_MS: '100',
      CHAIN_RETRY_MAX_MS: '500',
    };

    // A test intent of 10.00 with its deposit address (an anvil account's here, as the configured key would give).
    const deposits: DepositAddresses = { configuredFor: () => true, addressAt: (_environment, index) => anvilDevAccount(10 + index).address, chainsFor: () => [] };
    const { intents } = createSessions(h.sessions, h.config, h.clock, h.ledger, deposits);
    const { merchant, scope } = testMerchant();
    const intent = await intents.create(intentCommand(merchant, {}, { amount: '10.00' }), 'req_create');
    const withAddress = await intents.cryptoAddress({ ...scope, id: intent.id }, 'req_address');
    const address = (withAddress as unknown as { crypto: { address: `0x${string}` } }).crypto.address;
    expect(await h.count('crypto_addresses', 'session_id = $1', [intent.id])).toBe(1);

    watcher = await startService('chain-watcher', env);
    expect((await fetch(`${watcher.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${watcher.url}/health/ready`)).status).toBe(200);
    await until(async () => /chain_watcher_head_block\{chain="anvil"\} \d+/.test(await (await fetch(`${watcher!.opsUrl}/metrics`)).text()), 'the head metric');

    const received = async () => (await h.eventsOf(intent.id)).filter((e) => e.type === 'PaymentIntentCryptoTransferReceived');
    await sendToken(anvil.rpcUrl, token, address, 4_000_000n);
    await mineBlocks(anvil.rpcUrl, 1);
    await until(async () => (await received()).length === 1, 'the first transfer recorded');

    // Killed where it stands; meanwhile the rest arrives and is confirmed.
    await watcher.kill();
    await sendToken(anvil.rpcUrl, token, address, 6_000_000n);
    await mineBlocks(anvil.rpcUrl, 3);
    watcher = await startService('chain-watcher', env);
    await until(async () => (await received()).length === 2, 'the second transfer recorded');
    await mineBlocks(anvil.rpcUrl, 3);
    await until(
      async () => {
        const [row] = (await h.dataSource.query(`SELECT next_block::text AS n FROM "${SCHEMA}".chain_watch_progress WHERE chain_id = 42111`)) as Array<{ n: string }>;
        const head = BigInt(await (await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) }).then((r) => r.json()) as { result: string }).result);
        return row !== undefined && BigInt(row.n) > head;
      },
      'the watcher caught up',
    );

    expect(await received()).toHaveLength(2);
    expect(await h.count('chain_watch_transfers', `session_id = $1 AND state = 'counted'`, [intent.id])).toBe(2);
    expect(await h.count('chain_watch_transfers', `session_id = $1 AND state <> 'counted'`, [intent.id])).toBe(0);
    const events = await h.eventsOf(intent.id);
    expect(events.map((e) => e.type)).toContain('PaymentIntentSucceeded');
  });
});
