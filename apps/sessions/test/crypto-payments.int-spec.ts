import { randomBytes } from 'node:crypto';
import { deriveDepositAddress, readCryptoSettings, type CryptoSettings } from '@payments/chain';
import { validateEnvelope } from '@payments/events';
import { newWalletId } from '@payments/ids';
import { HDKey } from 'viem/accounts';
import type { ConfirmedTransfer } from '../src/crypto/transfer-sink';
import { WATCH_AFTER_EXPIRY_MS } from '../src/crypto/crypto-addresses';
import { codeOf, createHarness, intentCommand, testMerchant, type SessionsHarness } from './support/sessions-harness';

// Live crypto on the sessions side, against a real Postgres: deposit addresses (crypto_addresses, the
// payment-intents.crypto-address command), the watcher's list, and confirmed transfers applied through the change path.

function accountXpub(): string {
  return HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey;
}

function settings(environments: Array<'test' | 'live'>): CryptoSettings {
  const chain = {
    name: 'anvil',
    chain_id: 31337,
    rpc_url: 'http://127.0.0.1:8545',
    confirmations: 3,
    environments,
    tokens: [{ symbol: 'USDT', address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', decimals: 6 }],
  };
  return readCryptoSettings({ CRYPTO_CHAINS: JSON.stringify([chain]), CRYPTO_XPUB_TEST: accountXpub(), CRYPTO_XPUB_LIVE: accountXpub() });
}

let txs = 0;
/** A confirmed transfer of `cents` to the session (a fresh tx hash unless given). */
function transfer(sessionId: string, cents: number, overrides: Partial<ConfirmedTransfer> = {}): ConfirmedTransfer {
  txs += 1;
  return {
    environment: 'test',
    sessionId,
    chainId: 31337,
    chainName: 'anvil',
    token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    tokenSymbol: 'USDT',
    txHash: `0x${txs.toString(16).padStart(64, '0')}`,
    logIndex: 0,
    blockNumber: 100n,
    units: BigInt(cents) * 10_000n,
    cents: BigInt(cents),
    ...overrides,
  };
}

describe('crypto payments (sessions side)', () => {
  let h: SessionsHarness;
  let bare: SessionsHarness;
  let crypto: CryptoSettings;
  const { merchant, scope } = testMerchant();

  beforeAll(async () => {
    crypto = settings(['test', 'live']);
    h = await createHarness({ crypto });
    // The same database without any crypto settings.
    bare = await createHarness({ db: h.db, namespace: h.namespace });
  });
  afterAll(async () => {
    await bare?.close();
    await h?.close();
  });

  const create = (params: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) => h.intents.create(intentCommand(merchant, overrides, params), 'req');
  const addressOf = (id: string, on = h, environment: 'test' | 'live' = 'test') => on.intents.cryptoAddress({ merchant_id: merchant, environment, id }, `req_${id}`);
  const rowOf = async (id: string) =>
    ((await h.dataSource.query(`SELECT * FROM "sessions".crypto_addresses WHERE session_id = $1`, [id])) as Array<{ address: string; environment: string; derivation_index: string; expires_at: Date }>);

  describe('deposit addresses', () => {
    it('gives an intent the address of its index (idempotent), kept in crypto_addresses; two intents never share one', async () => {
      const a = await create();
      const b = await create();
      const first = await addressOf(a.id);
      expect(first.crypto.address).toMatch(/^0x[0-9A-Fa-f]{40}$/);
      expect(first.status).toBe('requires_payment_method');
      expect(await addressOf(a.id)).toEqual(first);
      const [row] = await rowOf(a.id);
      expect(row).toMatchObject({ address: first.crypto.address!.toLowerCase(), environment: 'test' });
      expect(deriveDepositAddress(crypto.xpub.test!, Number(row!.derivation_index))).toBe(first.crypto.address);
      expect(new Date(row!.expires_at).toISOString()).toBe(a.expires_at);

      const second = await addressOf(b.id);
      expect(second.crypto.address).not.toBe(first.crypto.address);
      expect((await h.eventsOf(a.id)).map((e) => e.type)).toEqual(['PaymentIntentCreated', 'PaymentIntentCryptoAddressAssigned']);
      // The address is not a public event: nothing more in the outbox than the create.
      expect((await h.outboxOf(a.id)).map((e) => e.type)).toEqual(['payment_intent.created']);
    });

    it('a double click gives one address: concurrent commands on two instances, one row, one event', async () => {
      const intent = await create();
      const other = await h.instance();
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? h : other).intents.cryptoAddress({ ...scope, id: intent.id }, `req_click_${i}`)),
      );
      expect(new Set(answers.map((r) => r.crypto.address)).size).toBe(1);
      expect(await rowOf(intent.id)).toHaveLength(1);
      expect((await h.eventsOf(intent.id)).filter((e) => e.type === 'PaymentIntentCryptoAddressAssigned')).toHaveLength(1);
      await other.dataSource.destroy();
    });

    it('the table refuses a second address for a session and an address for a second session', async () => {
      const [a, b] = [await create(), await create()];
      const address = (await addressOf(a.id)).crypto.address!.toLowerCase();
      const insert = (addr: string, session: string, index: number) =>
        h.dataSource.query(`INSERT INTO "sessions".crypto_addresses VALUES ($1, 'test', $2, $3, now(), now())`, [addr, session, index]);
      await expect(insert(address, b.id, 999_999)).rejects.toThrow(/crypto_addresses_pkey/);
      await expect(insert(`0x${'ab'.repeat(20)}`, a.id, 999_998)).rejects.toThrow(/crypto_addresses_session_key/);
    });

    it('refuses, in the Error shape: crypto not offered, an intent that can no longer be paid, live without a live chain', async () => {
      const noCrypto = await create({ methods: ['togo'] });
      expect(await codeOf(addressOf(noCrypto.id))).toBe('payment_methods_unavailable');
      const paid = await create();
      await h.intents.simulate({ ...scope, id: paid.id, result: 'succeeded', method: 'togo' }, 'req');
      expect(await codeOf(addressOf(paid.id))).toBe('invalid_state');
      const cancelled = await create();
      await h.intents.cancel({ ...scope, id: cancelled.id }, 'req');
      expect(await codeOf(addressOf(cancelled.id))).toBe('invalid_state');
      expect(await rowOf(paid.id)).toHaveLength(0);

      const liveIntent = await h.intents.create(intentCommand(merchant, { environment: 'live' }), 'req');
      expect(liveIntent.available_methods).toContain('crypto');
      expect((await addressOf(liveIntent.id, h, 'live')).crypto.address).toBe(deriveDepositAddress(crypto.xpub.live!, Number((await rowOf(liveIntent.id))[0]!.derivation_index)));
      // The same intent where live crypto is not configured (settings taken away): a clear refusal.
      expect(await codeOf(addressOf(liveIntent.id, bare, 'live'))).toBe('payment_methods_unavailable');
    });

    it('test mode without a test chain keeps the sandbox address (not watched)', async () => {
      const intent = await bare.intents.create(intentCommand(merchant), 'req');
      const answer = await addressOf(intent.id, bare);
      expect(answer.crypto.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(await rowOf(intent.id)).toHaveLength(0);
    });
  });

  describe('available_methods', () => {
    it('lists live crypto only when crypto is configured for live; a live create asking only for it is refused naming it', async () => {
      expect((await bare.intents.create(intentCommand(merchant, { environment: 'live' }), 'req')).available_methods).toEqual(['togo']);
      expect(await codeOf(bare.intents.create(intentCommand(merchant, { environment: 'live' }, { methods: ['crypto'] }), 'req'))).toBe('payment_methods_unavailable');
      expect((await h.intents.create(intentCommand(merchant, { environment: 'live' }, { methods: ['crypto'] }), 'req')).available_methods).toEqual(['crypto']);
      // Test mode lists it either way (the sandbox without a test chain).
      expect((await bare.intents.create(intentCommand(merchant), 'req')).available_methods).toContain('crypto');
      // Invoices have no deposit address yet: no live crypto there.
      expect(await codeOf(h.invoices.create(intentCommand(merchant, { environment: 'live' }, { description: 'x', methods: ['crypto'] }), 'req'))).toBe('payment_methods_unavailable');
    });
  });

  describe('the watch list', () => {
    it('maps lower-case addresses of the chain\'s environments to their sessions, until 7 days after expiry', async () => {
      const intent = await create();
      const address = (await addressOf(intent.id)).crypto.address!;
      const watched = await h.watchedAddresses.forChain(crypto.chainsFor('test')[0]!);
      expect(watched.get(address.toLowerCase())).toEqual({ environment: 'test', sessionId: intent.id });
      expect((await h.watchedAddresses.forChain({ environments: ['live'] })).has(address.toLowerCase())).toBe(false);
      const later = Date.parse(intent.expires_at) + WATCH_AFTER_EXPIRY_MS - Date.now();
      expect((await h.clock.shifted(later - 60_000, () => h.watchedAddresses.forChain({ environments: ['test'] }))).has(address.toLowerCase())).toBe(true);
      expect((await h.clock.shifted(later + 60_000, () => h.watchedAddresses.forChain({ environments: ['test'] }))).has(address.toLowerCase())).toBe(false);
    });
  });

  describe('confirmed transfers', () => {
    const withAddress = async (params: Record<string, unknown> = {}) => {
      const intent = await create(params);
      await addressOf(intent.id);
      return intent;
    };
    const get = (id: string) => h.intents.get({ ...scope, id });
    const paymentsOf = (id: string) =>
      h.dataSource.query(`SELECT amount_cents, fee_cents, net_cents FROM "sessions".payments WHERE source_id = $1`, [id]) as Promise<
        Array<{ amount_cents: string; fee_cents: string; net_cents: string }>
      >;

    it('exact payment: succeeded with one payment of the amount, 1.5 % fee; the same transfer again does nothing', async () => {
      const intent = await withAddress();
      const t = transfer(intent.id, 7400);
      await h.transferSink.record(t);
      await h.transferSink.record(t);
      const paid = await get(intent.id);
      expect(paid).toMatchObject({ status: 'succeeded', paid: true, payment_method: 'crypto', fee: '1.11', net_amount: '72.89' });
      expect(paid.crypto).toMatchObject({ received_amount: '74.00', remaining_amount: '0.00', overpayment_amount: '0.00', txid: t.txHash });
      expect(await paymentsOf(intent.id)).toEqual([{ amount_cents: '7400', fee_cents: '111', net_cents: '7289' }]);
      const events = await h.eventsOf(intent.id);
      expect(events.map((e) => e.type)).toEqual([
        'PaymentIntentCreated',
        'PaymentIntentCryptoAddressAssigned',
        'PaymentIntentProcessingStarted',
        'PaymentIntentCryptoTransferReceived',
        'PaymentIntentSucceeded',
      ]);
      expect(events[3]!.data).toMatchObject({ txid: t.txHash, key: `31337:${t.txHash}:0`, amountCents: 7400, chain: { chainName: 'anvil', tokenSymbol: 'USDT', units: '74000000', blockNumber: '100' } });
      expect((await h.outboxOf(intent.id)).map((e) => validateEnvelope(e).type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded']);
    });

    it('partial then the rest: processing with remaining_amount, then succeeded; two logs of one transaction are two transfers', async () => {
      const intent = await withAddress();
      const first = transfer(intent.id, 3000);
      await h.transferSink.record(first);
      expect(await get(intent.id)).toMatchObject({ status: 'processing', paid: false, crypto: { received_amount: '30.00', remaining_amount: '44.00' } });
      await h.transferSink.record({ ...first, logIndex: 1, cents: 4400n, units: 44_000_000n });
      expect(await get(intent.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00', remaining_amount: '0.00', txid: first.txHash } });
      expect((await h.outboxOf(intent.id)).map((e) => e.type)).toEqual([
        'payment_intent.created',
        'payment_intent.processing',
        'payment_intent.partially_paid',
        'payment_intent.succeeded',
      ]);
      expect(await paymentsOf(intent.id)).toHaveLength(1);
    });

    it('over-payment: succeeded with overpayment_amount; the payment (and so the ledger) is of what was received, its fee 1.5 % of it', async () => {
      const intent = await withAddress();
      await h.transferSink.record(transfer(intent.id, 10_000));
      const paid = await get(intent.id);
      expect(paid).toMatchObject({ status: 'succeeded', amount: '74.00', fee: '1.50', net_amount: '98.50', crypto: { received_amount: '100.00', overpayment_amount: '26.00' } });
      expect(await paymentsOf(intent.id)).toEqual([{ amount_cents: '10000', fee_cents: '150', net_cents: '9850' }]);
      const succeeded = (await h.outboxOf(intent.id)).find((e) => e.type === 'payment_intent.succeeded')!;
      expect(succeeded.data.payment).toMatchObject({ method: 'crypto', amount: '100.00', fee: '1.50', net: '98.50', fee_rate_bps: 150 });
    });

    it('a transfer to a paid intent adds to overpayment_amount, reported, never a second payment', async () => {
      const intent = await withAddress();
      await h.transferSink.record(transfer(intent.id, 7400));
      const paymentId = (await get(intent.id)).payment_id;
      const extra = transfer(intent.id, 250);
      await h.transferSink.record(extra);
      expect(await get(intent.id)).toMatchObject({ status: 'succeeded', payment_id: paymentId, crypto: { received_amount: '76.50', overpayment_amount: '2.50', txid: extra.txHash } });
      expect(await paymentsOf(intent.id)).toEqual([{ amount_cents: '7400', fee_cents: '111', net_cents: '7289' }]);
      const outbox = await h.outboxOf(intent.id);
      expect(outbox.at(-1)).toMatchObject({ type: 'payment_intent.crypto_transfer_after_close', data: { object: { status: 'succeeded', crypto: { overpayment_amount: '2.50' } } } });
      expect(validateEnvelope(outbox.at(-1))).toBeTruthy();
      expect(outbox.filter((e) => e.type === 'payment_intent.succeeded')).toHaveLength(1);
    });

    it('the whole amount arriving beside an open wallet attempt pays the intent in crypto; the wallet debit that follows is kept for a refund, never a second payment', async () => {
      const intent = await withAddress();
      const wallet = newWalletId('test');
      h.ledger.credit(wallet, '100.00');
      // The customer clicks "pay from wallet" while the ledger does not answer: the attempt stays open, processing.
      h.ledger.down = true;
      const payer = { name: 'Lina Haddad', email: 'lina@example.com', phone: '+97059•••4567', country: 'PS' };
      expect(await h.walletHandlers.pay({ id: intent.id, wallet_id: wallet, payer })).toMatchObject({ outcome: 'pending' });
      expect(await get(intent.id)).toMatchObject({ status: 'processing', payment_method: 'togo' });

      // Their crypto transfer, sent before, confirms meanwhile: the money is in hand, so the intent is paid in crypto.
      const t = transfer(intent.id, 7400);
      await h.transferSink.record(t);
      const paid = await get(intent.id);
      expect(paid).toMatchObject({ status: 'succeeded', payment_method: 'crypto', fee: '1.11', crypto: { received_amount: '74.00', remaining_amount: '0.00' } });
      expect(await paymentsOf(intent.id)).toEqual([{ amount_cents: '7400', fee_cents: '111', net_cents: '7289' }]);

      // The ledger comes back and the wallet attempt is driven to its end: recorded on the attempt for a refund.
      h.ledger.down = false;
      const table = h.sessions.table('provider_attempts');
      await h.dataSource.query(`UPDATE ${table} SET next_check_at = now() - interval '1 second', verifying_until = NULL, verifying_token = NULL WHERE session_id = $1`, [intent.id]);
      await h.providerPayments.checkDue(20);
      const [attempt] = (await h.dataSource.query(`SELECT status, failure_reason FROM ${table} WHERE session_id = $1`, [intent.id])) as Array<{ status: string; failure_reason: string | null }>;
      expect(attempt).toEqual({ status: 'succeeded', failure_reason: 'session_already_paid' });
      expect(await get(intent.id)).toMatchObject({ status: 'succeeded', payment_id: paid.payment_id, payment_method: 'crypto' });
      expect(await paymentsOf(intent.id)).toHaveLength(1);
      expect((await h.outboxOf(intent.id)).filter((e) => e.type === 'payment_intent.succeeded')).toHaveLength(1);
    });

    it('after expiry: a partial is recorded on the expired intent; the rest makes it succeeded late (paid_at after expires_at)', async () => {
      const intent = await h.clock.shifted(-1800_000 - 5_000, () => withAddress());
      expect((await get(intent.id)).status).toBe('expired');
      await h.transferSink.record(transfer(intent.id, 1000));
      expect(await get(intent.id)).toMatchObject({ status: 'expired', paid: false, crypto: { received_amount: '10.00', remaining_amount: '64.00' } });
      expect((await h.outboxOf(intent.id)).at(-1)!.type).toBe('payment_intent.partially_paid');
      await h.transferSink.record(transfer(intent.id, 6400));
      const paid = await get(intent.id);
      expect(paid).toMatchObject({ status: 'succeeded', paid: true, crypto: { received_amount: '74.00' } });
      expect(Date.parse(paid.paid_at!)).toBeGreaterThan(Date.parse(paid.expires_at));
      expect(await paymentsOf(intent.id)).toHaveLength(1);
    });

    it('a counted transfer reversed by a reorg: an unpaid intent stops counting it (mined again, it counts again); a paid one stays paid', async () => {
      const intent = await withAddress();
      const t = transfer(intent.id, 3000);
      await h.transferSink.record(t);
      await h.transferSink.reportReversed(t);
      await h.transferSink.reportReversed(t);
      expect(await get(intent.id)).toMatchObject({ status: 'processing', crypto: { received_amount: '0.00', remaining_amount: '74.00', txid: null } });
      expect((await h.eventsOf(intent.id)).filter((e) => e.type === 'PaymentIntentCryptoTransferReversed')).toHaveLength(1);
      await h.transferSink.record({ ...t, blockNumber: 101n });
      expect((await get(intent.id)).crypto.received_amount).toBe('30.00');

      const paidIntent = await withAddress();
      const full = transfer(paidIntent.id, 7400);
      await h.transferSink.record(full);
      await h.transferSink.reportReversed(full);
      await h.transferSink.record(full);
      expect(await get(paidIntent.id)).toMatchObject({ status: 'succeeded', crypto: { received_amount: '74.00' } });
      expect(await paymentsOf(paidIntent.id)).toHaveLength(1);
    });

    it('transfers of one intent recorded at once are each counted once', async () => {
      const intent = await withAddress();
      const parts = Array.from({ length: 2 }, () => transfer(intent.id, 1000));
      await Promise.all([...parts, ...parts].map((t) => h.transferSink.record(t)));
      const after = await get(intent.id);
      expect(after.crypto.received_amount).toBe('20.00');
      expect((await h.eventsOf(intent.id)).filter((e) => e.type === 'PaymentIntentCryptoTransferReceived')).toHaveLength(2);
    });
  });
});
