// Crypto payments end to end on a real chain, in one process: anvil with a 6- and an 18-decimal token, the watcher's
// loop (its reader, store and lock) stepped by the test, sessions' own watch list and transfer sink, and Postgres.
// The intent's state is read through sessions' commands. Stepping the loop by hand puts reorgs exactly where a
// test wants them; the commands' clock is shifted to make intents that expired before their transfer (the API
// refuses an expiry under 300 s, and the transfer must arrive after it).
import { Logger, type LoggerService } from '@nestjs/common';
import { createChainReader, readCryptoSettings, type CryptoChain, type CryptoSettings } from '@payments/chain';
import { pgClientConfig } from '@payments/database';
import { metricsRegistry } from '@payments/platform';
import {
  anvilDevAccount,
  deployTestToken,
  mineBlocks,
  mintToken,
  rawTransaction,
  reorgChain,
  resendTransaction,
  sendToken,
  startAnvil,
  testChainClient,
  type RunningAnvil,
} from '@payments/testing';
import { randomBytes } from 'node:crypto';
import { HDKey } from 'viem/accounts';
import { ChainLocks } from '../src/chain-watcher/chain-locks';
import { ChainWatchLoop } from '../src/chain-watcher/chain-watch.loop';
import { ChainWatchStore } from '../src/chain-watcher/chain-watch.store';
import { createHarness, intentCommand, SCHEMA, testMerchant, type SessionsHarness } from './support/sessions-harness';

type Address = `0x${string}`;
const CONFIRMATIONS = 3;
const INTENT_LIFETIME_MS = 1800_000; // the default expires_in

/** Every log line, to show what is reported loudly. */
class CapturingLogger implements LoggerService {
  readonly lines: Array<{ level: string; text: string }> = [];
  private keep = (level: string) => (...args: unknown[]) => void this.lines.push({ level, text: args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))).join(' ') });
  log = this.keep('log');
  error = this.keep('error');
  warn = this.keep('warn');
  debug = this.keep('debug');
  verbose = this.keep('verbose');
  at(level: string, text: string | RegExp): string[] {
    return this.lines.filter((l) => l.level === level && (typeof text === 'string' ? l.text.includes(text) : text.test(l.text))).map((l) => l.text);
  }
}

async function counter(name: string, chain: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.chain === chain)?.value ?? 0;
}

describe('crypto payments on a real chain (watcher loop + sessions sink + Postgres)', () => {
  let anvil: RunningAnvil;
  let usdt: Address;
  let dai: Address;
  let chain: CryptoChain;
  let h: SessionsHarness;
  let locks: ChainLocks;
  let watcher: ChainWatchLoop;
  const logs = new CapturingLogger();
  const { merchant, scope } = testMerchant();
  let customers = 0;

  beforeAll(async () => {
    anvil = await startAnvil();
    usdt = await deployTestToken(anvil.rpcUrl, { name: 'Test Tether', symbol: 'USDT', decimals: 6 });
    dai = await deployTestToken(anvil.rpcUrl, { name: 'Test Dai', symbol: 'DAI', decimals: 18 });
    const chains = [
      { name: 'anvil', chain_id: anvil.chainId, rpc_url: anvil.rpcUrl, confirmations: CONFIRMATIONS, environments: ['test'], tokens: [{ symbol: 'USDT', address: usdt, decimals: 6 }, { symbol: 'DAI', address: dai, decimals: 18 }] },
    ];
    const settings: CryptoSettings = readCryptoSettings({ CRYPTO_CHAINS: JSON.stringify(chains), CRYPTO_XPUB_TEST: HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey });
    chain = settings.chains[0]!;
    h = await createHarness({ crypto: settings });
    Logger.overrideLogger(logs);
    locks = new ChainLocks(pgClientConfig(h.dataSource, 'test-chain-locks'));
    watcher = new ChainWatchLoop({
      chain,
      reader: createChainReader(chain, { timeoutMs: 5000 }),
      watched: h.watchedAddresses,
      sink: h.transferSink,
      store: new ChainWatchStore(h.dataSource, SCHEMA),
      locks,
      settings: { hashMargin: 16, rangeBlocks: 50, maxBlocksPerStep: 200 },
      pollIntervalMs: 50,
      retryMaxMs: 400,
    });
    expect(await watcher.runOnce()).toBe('idle');
  }, 60_000);

  afterAll(async () => {
    Logger.overrideLogger(['error', 'warn']);
    await watcher?.stop();
    await locks?.close();
    await anvil?.stop();
    await h?.close();
  });

  /** A new customer: a dev account of its own (so a resent transaction's nonce is still free) with both tokens. */
  async function customer(): Promise<number> {
    customers += 1;
    const index = customers; // anvil funds accounts 1..9 with ether for gas
    const { address } = anvilDevAccount(index);
    await mintToken(anvil.rpcUrl, usdt, address, 1_000n * 10n ** 6n);
    await mintToken(anvil.rpcUrl, dai, address, 1_000n * 10n ** 18n);
    return index;
  }
  const usd = (cents: number, decimals: number) => BigInt(cents) * 10n ** BigInt(decimals - 2);
  const create = (params: Record<string, unknown> = {}) => h.intents.create(intentCommand(merchant, {}, params), 'req');
  const withAddress = async (params: Record<string, unknown> = {}) => {
    const intent = await create(params);
    const answer = await h.intents.cryptoAddress({ ...scope, id: intent.id }, `req_${intent.id}`);
    return { id: intent.id, address: answer.crypto.address as Address };
  };
  const get = (id: string) => h.intents.get({ ...scope, id });
  const eventTypes = async (id: string) => (await h.eventsOf(id)).map((e) => e.type);
  const received = async (id: string) => (await h.eventsOf(id)).filter((e) => e.type === 'PaymentIntentCryptoTransferReceived');
  const paymentsOf = (id: string) =>
    h.dataSource.query(`SELECT amount_cents, fee_cents FROM "${SCHEMA}".payments WHERE source_id = $1`, [id]) as Promise<Array<{ amount_cents: string; fee_cents: string }>>;
  const watchRows = (txHash: string) =>
    h.dataSource.query(`SELECT state, block_number::text FROM "${SCHEMA}".chain_watch_transfers WHERE tx_hash = $1`, [txHash.toLowerCase()]) as Promise<Array<{ state: string; block_number: string | null }>>;
  /** Steps until the watcher has read up to the head. */
  const catchUp = async () => {
    for (let i = 0; i < 20; i++) if ((await watcher.runOnce()) === 'idle') return;
    throw new Error('the watcher did not catch up in 20 steps');
  };

  it('a payment after expiry: enough succeeds late (paid_at after expires_at, booked once); short stays expired showing what arrived', async () => {
    // Both intents were created (and given their address) 30 min and 5 s ago: they are expired now.
    const [late, short] = await h.clock.shifted(-INTENT_LIFETIME_MS - 5_000, async () => [await withAddress(), await withAddress()]);
    await h.expiry.runOnce(); // stored as expired too, as the expiry job does
    expect((await get(late.id)).status).toBe('expired');
    expect((await get(short.id)).status).toBe('expired');

    const payer = await customer();
    const paid = await sendToken(anvil.rpcUrl, usdt, late.address, usd(7400, 6), { from: payer });
    const part = await sendToken(anvil.rpcUrl, usdt, short.address, usd(1000, 6), { from: payer });
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();

    const lateNow = await get(late.id);
    expect(lateNow).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'crypto', crypto: { received_amount: '74.00', remaining_amount: '0.00', txid: paid.toLowerCase() } });
    expect(Date.parse(lateNow.paid_at!)).toBeGreaterThan(Date.parse(lateNow.expires_at));
    expect(await paymentsOf(late.id)).toEqual([{ amount_cents: '7400', fee_cents: '111' }]);
    expect((await h.outboxOf(late.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired', 'payment_intent.processing', 'payment_intent.succeeded']);

    expect(await get(short.id)).toMatchObject({ status: 'expired', paid: false, crypto: { received_amount: '10.00', remaining_amount: '64.00', txid: part.toLowerCase() } });
    const reported = (await h.outboxOf(short.id)).at(-1)!;
    expect(reported).toMatchObject({ type: 'payment_intent.partially_paid', data: { object: { status: 'expired', crypto: { received_amount: '10.00' } } } });
    expect(await paymentsOf(short.id)).toEqual([]);
    expect(logs.at('warn', 'crypto transfer after expiry')).toHaveLength(2);

    // The rest, later still: the expired intent is complete and succeeds late, once.
    await sendToken(anvil.rpcUrl, dai, short.address, usd(6400, 18), { from: payer });
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS + 2);
    await catchUp();
    await catchUp();
    expect(await get(short.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00', remaining_amount: '0.00' } });
    expect(await paymentsOf(short.id)).toEqual([{ amount_cents: '7400', fee_cents: '111' }]);
    expect(await received(late.id)).toHaveLength(1);
    expect(await received(short.id)).toHaveLength(2);
  });

  it('a reorg removing a transfer before its confirmations: the intent keeps waiting; mined again, it succeeds once', async () => {
    const intent = await withAddress();
    const payer = await customer();
    const hash = await sendToken(anvil.rpcUrl, usdt, intent.address, usd(7400, 6), { from: payer });
    const raw = await rawTransaction(anvil.rpcUrl, hash);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 2); // one short of its confirmations
    await catchUp();
    expect(await watchRows(hash)).toEqual([expect.objectContaining({ state: 'seen' })]);
    expect(await get(intent.id)).toMatchObject({ status: 'requires_payment_method', crypto: { received_amount: '0.00' } });

    await reorgChain(anvil.rpcUrl, CONFIRMATIONS - 1); // the transfer's block and the one after: gone
    await catchUp();
    expect(await watchRows(hash)).toEqual([]);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS + 1);
    await catchUp();
    expect(await get(intent.id)).toMatchObject({ status: 'requires_payment_method', paid: false, crypto: { received_amount: '0.00', remaining_amount: '74.00', txid: null } });
    expect(await eventTypes(intent.id)).toEqual(['PaymentIntentCreated', 'PaymentIntentCryptoAddressAssigned']);

    // The customer's transaction is mined again (same hash), then confirmed.
    expect(await resendTransaction(anvil.rpcUrl, raw)).toBe(hash);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS);
    await catchUp();
    expect(await get(intent.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00', overpayment_amount: '0.00', txid: hash.toLowerCase() } });
    expect(await received(intent.id)).toHaveLength(1);
    expect(await paymentsOf(intent.id)).toHaveLength(1);
  });

  it('a reorg after a transfer was counted: recorded as reversed, reported loudly, and the same transaction mined again is never counted twice', async () => {
    const unpaid = await withAddress();
    const paid = await withAddress();
    const payer = await customer();
    const part = await sendToken(anvil.rpcUrl, usdt, unpaid.address, usd(3000, 6), { from: payer });
    const whole = await sendToken(anvil.rpcUrl, usdt, paid.address, usd(7400, 6), { from: payer });
    const [partRaw, wholeRaw] = [await rawTransaction(anvil.rpcUrl, part), await rawTransaction(anvil.rpcUrl, whole)];
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();
    expect(await get(unpaid.id)).toMatchObject({ status: 'processing', crypto: { received_amount: '30.00', remaining_amount: '44.00' } });
    expect(await get(paid.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00' } });

    const reversedBefore = await counter('chain_watcher_transfers_reversed_total', chain.name);
    const errorsBefore = logs.at('error', /reorg/).length;
    // Both blocks and the confirmations after them replaced by as many empty ones: deeper than the confirmations.
    await reorgChain(anvil.rpcUrl, CONFIRMATIONS + 1);
    await catchUp();
    await catchUp();

    // Reported: an event on each intent, an error line each from the watcher and from sessions, the metric.
    expect(await counter('chain_watcher_transfers_reversed_total', chain.name)).toBe(reversedBefore + 2);
    const errors = logs.lines.filter((l) => l.level === 'error').slice(errorsBefore).map((l) => l.text);
    expect(errors.filter((t) => t.includes('a counted transfer was reversed by a reorg'))).toHaveLength(2);
    expect(errors.filter((t) => t.includes('removed by a reorg after the intent was paid') && t.includes(paid.id))).toHaveLength(1);
    expect(errors.filter((t) => t.includes('the intent no longer counts it') && t.includes(unpaid.id))).toHaveLength(1);
    expect((await eventTypes(unpaid.id)).filter((t) => t === 'PaymentIntentCryptoTransferReversed')).toHaveLength(1);
    expect((await eventTypes(paid.id)).filter((t) => t === 'PaymentIntentCryptoTransferReversed')).toHaveLength(1);
    expect(await watchRows(part)).toEqual([{ state: 'reversed', block_number: null }]);
    // As decided: the unpaid intent no longer counts it; the paid one stays paid (an operator settles the shortfall).
    expect(await get(unpaid.id)).toMatchObject({ status: 'processing', crypto: { received_amount: '0.00', remaining_amount: '74.00' } });
    expect(await get(paid.id)).toMatchObject({ status: 'succeeded', paid: true, crypto: { received_amount: '74.00', overpayment_amount: '0.00' } });

    // The same two transactions are mined again and confirmed.
    await resendTransaction(anvil.rpcUrl, partRaw);
    await resendTransaction(anvil.rpcUrl, wholeRaw);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS + 2);
    await catchUp();
    await catchUp();
    // The paid intent does not count its transfer twice: no second payment, no overpayment, no after-close event.
    expect(await get(paid.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00', overpayment_amount: '0.00' } });
    expect(await paymentsOf(paid.id)).toHaveLength(1);
    expect((await h.outboxOf(paid.id)).filter((e) => e.type === 'payment_intent.succeeded' || e.type === 'payment_intent.crypto_transfer_after_close')).toHaveLength(1);
    // The unpaid intent counts its transfer again, since the money is at its address again: once.
    expect(await get(unpaid.id)).toMatchObject({ status: 'processing', crypto: { received_amount: '30.00', remaining_amount: '44.00' } });
    expect(await received(unpaid.id)).toHaveLength(2); // the first count (reversed since) and this one
  });

  it('a reorg that re-includes a counted transaction behind another one (another log index): still the same transfer, counted once', async () => {
    const intent = await withAddress();
    const payer = await customer();
    const hash = await sendToken(anvil.rpcUrl, usdt, intent.address, usd(7400, 6), { from: payer });
    const raw = await rawTransaction(anvil.rpcUrl, hash);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();
    expect(await get(intent.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00' } });

    // The same transaction in the first new block, after someone else's token transfer: its log index is now 1.
    const stranger = anvilDevAccount(19).address;
    await reorgChain(anvil.rpcUrl, CONFIRMATIONS, { transfers: [{ token: usdt, to: stranger, units: 1n, blockOffset: 0 }, { raw, blockOffset: 0 }] });
    const receipt = await (await testChainClient(anvil.rpcUrl)).getTransactionReceipt({ hash });
    expect(receipt.logs.map((l) => l.logIndex)).toEqual([1]);
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS + 1);
    await catchUp();
    await catchUp();

    expect(await get(intent.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00', overpayment_amount: '0.00' } });
    expect(await received(intent.id)).toHaveLength(1);
    expect((await eventTypes(intent.id)).filter((t) => t === 'PaymentIntentCryptoTransferReversed')).toHaveLength(0);
    expect((await h.outboxOf(intent.id)).filter((e) => e.type === 'payment_intent.crypto_transfer_after_close')).toHaveLength(0);
    expect(await watchRows(hash)).toEqual([{ state: 'counted', block_number: expect.any(String) }]);
  });

  it('two tokens (6 and 18 decimals) each paying part of one intent: summed in cents, succeeded once; the 18-decimal dust is dropped', async () => {
    const intent = await withAddress();
    const payer = await customer();
    const first = await sendToken(anvil.rpcUrl, usdt, intent.address, usd(3000, 6), { from: payer });
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();
    expect(await get(intent.id)).toMatchObject({ status: 'processing', crypto: { received_amount: '30.00', remaining_amount: '44.00', txid: first.toLowerCase() } });

    // 44.00 DAI and 0.009999… DAI more: below a cent, dropped as dust.
    const second = await sendToken(anvil.rpcUrl, dai, intent.address, usd(4400, 18) + 10n ** 16n - 1n, { from: payer });
    await mineBlocks(anvil.rpcUrl, CONFIRMATIONS - 1);
    await catchUp();
    expect(await get(intent.id)).toMatchObject({ status: 'succeeded', paid: true, crypto: { received_amount: '74.00', remaining_amount: '0.00', overpayment_amount: '0.00', txid: second.toLowerCase() } });
    const parts = (await received(intent.id)).map((e) => e.data as { amountCents: number; chain: { tokenSymbol: string; units: string } });
    expect(parts.map((p) => [p.chain.tokenSymbol, p.chain.units, p.amountCents])).toEqual([
      ['USDT', '30000000', 3000],
      ['DAI', '44009999999999999999', 4400],
    ]);
    expect(await paymentsOf(intent.id)).toEqual([{ amount_cents: '7400', fee_cents: '111' }]);
  });
});
