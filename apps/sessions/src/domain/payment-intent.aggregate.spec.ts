import { newPaymentId, newPaymentIntentId } from '@payments/ids';
import { feeSchedule } from '@payments/money';
import { DomainError } from './domain-error';
import { PaymentIntent, type PaymentIntentStatus } from './payment-intent.aggregate';
import type { PaymentIntentEvent } from './payment-intent.events';
import { at, codeOf, createInput, intentIn, newIntent, T0 } from './payment-intent.fixtures';

const STATUSES: PaymentIntentStatus[] = ['requires_payment_method', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'];

const types = (events: PaymentIntentEvent[]) => events.map((e) => e.type);

describe('PaymentIntent.create', () => {
  it('starts in requires_payment_method with nothing paid', () => {
    const intent = newIntent({ description: 'Order 42', externalRef: 'order-42', metadata: { order: '42' } });
    expect(intent.state).toMatchObject({
      status: 'requires_payment_method',
      amountCents: 7400,
      currency: 'USD',
      description: 'Order 42',
      externalRef: 'order-42',
      successUrl: null,
      cancelUrl: null,
      customer: null,
      metadata: { order: '42' },
      methods: ['togo', 'lahza', 'crypto'],
      createdAt: '2025-03-01T10:00:00.000Z',
      expiresAt: '2025-03-01T10:30:00.000Z', // default 1800 s
      paidAt: null,
      paymentMethod: null,
      feeCents: 0,
      netCents: 7400,
      paymentId: null,
      crypto: { address: null, requestedCents: 7400, receivedCents: 0, remainingCents: 7400, overpaymentCents: 0, txid: null },
      version: 1,
    });
  });

  it('takes expires_in and defaults metadata to {}', () => {
    const intent = newIntent({ expiresInSeconds: 300 });
    expect(intent.state.expiresAt).toBe('2025-03-01T10:05:00.000Z');
    expect(intent.state.metadata).toEqual({});
  });

  it.each([
    ['amount below 0.50', { amountCents: 49 }],
    ['amount above 999999.99', { amountCents: 100_000_000 }],
    ['fractional cents', { amountCents: 100.5 }],
    ['another currency', { currency: 'EUR' }],
    ['no methods', { methods: [] }],
    ['repeated methods', { methods: ['togo', 'togo'] as const }],
    ['an unknown method', { methods: ['card'] as never }],
    ['expires_in below 300', { expiresInSeconds: 299 }],
    ['expires_in above 86400', { expiresInSeconds: 86_401 }],
    ['a test id on a live intent', { id: newPaymentIntentId('test'), environment: 'live' as const }],
    ['a malformed id', { id: 'pi_live_x' }],
  ])('refuses %s as invalid_request', (_name, overrides) => {
    expect(codeOf(() => PaymentIntent.create(createInput(overrides)))).toBe('invalid_request');
  });

  it('creates test intents with test ids', () => {
    expect(newIntent({ environment: 'test' }).state.environment).toBe('test');
  });
});

describe('PaymentIntent transitions (DESIGN §5 table)', () => {
  // command -> the statuses it is allowed from, and the status it leads to
  const commands: Record<string, { from: PaymentIntentStatus[]; to: PaymentIntentStatus; run: (i: PaymentIntent) => PaymentIntentEvent[] }> = {
    submitMethod: { from: ['requires_payment_method', 'failed'], to: 'processing', run: (i) => i.submitMethod('lahza', at(30)) },
    succeed: { from: ['processing'], to: 'succeeded', run: (i) => i.succeed({ paymentId: newPaymentId(), now: at(30) }) },
    fail: { from: ['processing'], to: 'failed', run: (i) => i.fail({ reason: 'declined', now: at(30) }) },
    cancel: { from: ['requires_payment_method', 'failed'], to: 'cancelled', run: (i) => i.cancel({ now: at(30) }) },
    expire: { from: ['requires_payment_method', 'processing', 'failed'], to: 'expired', run: (i) => i.expire(at(1800)) },
  };

  for (const [name, command] of Object.entries(commands)) {
    for (const status of STATUSES) {
      if (command.from.includes(status)) {
        it(`${name}: ${status} -> ${command.to}`, () => {
          const intent = intentIn(status);
          const events = command.run(intent);
          expect(events).toHaveLength(1);
          const after = intent.apply(events);
          expect(after.state.status).toBe(command.to);
          expect(after.version).toBe(intent.version + 1);
        });
      } else {
        it(`${name}: refused from ${status} with invalid_state`, () => {
          const intent = intentIn(status);
          expect(codeOf(() => command.run(intent))).toBe('invalid_state');
        });
      }
    }
  }

  it('commands never change the aggregate they run on', () => {
    const intent = intentIn('requires_payment_method');
    intent.submitMethod('togo', at(10));
    expect(intent.state.status).toBe('requires_payment_method');
    expect(intent.version).toBe(1);
  });

  it('lets the customer retry after a failure', () => {
    let intent = intentIn('failed');
    expect(intent.state.failureReason).toBe('card_declined');
    intent = intent.apply(intent.submitMethod('lahza', at(40)));
    expect(intent.state.paymentMethod).toBe('lahza');
    intent = intent.apply(intent.succeed({ paymentId: newPaymentId(), now: at(50) }));
    expect(intent.state.status).toBe('succeeded');
  });

  it('records the cancellation reason in the event', () => {
    expect(intentIn('requires_payment_method').cancel({ now: at(5), reason: 'requested_by_customer' })).toEqual([
      { type: 'PaymentIntentCancelled', data: { reason: 'requested_by_customer', cancelledAt: '2025-03-01T10:00:05.000Z' } },
    ]);
  });

  it('refuses a method that is not available for the intent', () => {
    const intent = newIntent({ methods: ['togo'] });
    expect(codeOf(() => intent.submitMethod('lahza', at(5)))).toBe('payment_methods_unavailable');
  });
});

describe('PaymentIntent success', () => {
  it.each([
    ['togo', 7400, 50, 37, 7363],
    ['lahza', 7400, 150, 111, 7289],
    ['togo', 100, 50, 1, 99], // half a cent rounds up
  ] as const)('by %s on %d cents: fee per the policy, net = amount - fee', (method, amountCents, rateBps, feeCents, netCents) => {
    const intent = newIntent({ amountCents });
    const processing = intent.apply(intent.submitMethod(method, at(10)));
    const paymentId = newPaymentId();
    const events = processing.succeed({ paymentId, now: at(20) });
    expect(events).toEqual([
      { type: 'PaymentIntentSucceeded', data: { paymentId, feeRateBps: rateBps, feeCents, netCents, paidAt: '2025-03-01T10:00:20.000Z' } },
    ]);
    const paid = processing.apply(events).state;
    expect(paid).toMatchObject({ status: 'succeeded', paidAt: '2025-03-01T10:00:20.000Z', paymentId, feeCents, netCents, paymentMethod: method });
  });

  it("uses the merchant's schedule when one is given", () => {
    const processing = intentIn('processing');
    const [event] = processing.succeed({ paymentId: newPaymentId(), now: at(20), feeSchedule: feeSchedule({ togo: 0 }) });
    expect(event).toMatchObject({ data: { feeRateBps: 0, feeCents: 0, netCents: 7400 } });
  });

  it('refuses a malformed payment id', () => {
    expect(codeOf(() => intentIn('processing').succeed({ paymentId: '0123', now: at(20) }))).toBe('invalid_request');
  });

  it('keeps the fee schedule recorded at creation through a JSON round trip of the stream', () => {
    const created = PaymentIntent.create(createInput({ feeSchedule: feeSchedule({ togo: 100 }) }));
    const intent = PaymentIntent.fromEvents(JSON.parse(JSON.stringify(created)) as PaymentIntentEvent[]);
    const processing = intent.apply(intent.submitMethod('togo', at(10)));
    expect(processing.succeed({ paymentId: newPaymentId(), now: at(20) })[0]).toMatchObject({ data: { feeRateBps: 100, feeCents: 74 } });
    expect(PaymentIntent.create(createInput())[0]!.data).not.toHaveProperty('feeSchedule');
  });
});

describe('PaymentIntent expiry', () => {
  it.each(['requires_payment_method', 'processing', 'failed'] as const)('a %s intent reads as expired from expires_at on', (status) => {
    const intent = intentIn(status);
    expect(intent.effectiveStatus(at(1799))).toBe(status);
    expect(intent.isExpiredAt(at(1799))).toBe(false);
    expect(intent.effectiveStatus(at(1800))).toBe('expired');
    expect(intent.isExpiredAt(at(1800))).toBe(true);
    expect(intent.state.status).toBe(status); // until the expiry is recorded
  });

  it.each(['succeeded', 'cancelled'] as const)('a %s intent keeps its final status after expires_at', (status) => {
    const intent = intentIn(status);
    expect(intent.effectiveStatus(at(100_000))).toBe(status);
    expect(intent.isExpiredAt(at(100_000))).toBe(false);
  });

  it('refuses every command once expires_at has passed, even before the expiry is recorded', () => {
    const rpm = intentIn('requires_payment_method');
    const processing = intentIn('processing');
    const failed = intentIn('failed');
    const late = at(1800);
    expect(codeOf(() => rpm.submitMethod('togo', late))).toBe('invalid_state');
    expect(codeOf(() => rpm.cancel({ now: late }))).toBe('invalid_state');
    expect(codeOf(() => processing.succeed({ paymentId: newPaymentId(), now: late }))).toBe('invalid_state');
    expect(codeOf(() => processing.fail({ now: late }))).toBe('invalid_state');
    expect(codeOf(() => failed.submitMethod('togo', late))).toBe('invalid_state');
  });

  it('is not recorded before expires_at', () => {
    expect(codeOf(() => intentIn('requires_payment_method').expire(at(1799)))).toBe('invalid_state');
  });

  it('is recorded with the time it happened', () => {
    expect(intentIn('processing').expire(at(1805))).toEqual([{ type: 'PaymentIntentExpired', data: { expiredAt: '2025-03-01T10:30:05.000Z' } }]);
  });
});

describe('PaymentIntent crypto', () => {
  const withAddress = () => {
    const intent = newIntent();
    return intent.apply(intent.assignCryptoAddress('0xabc', at(5)));
  };

  it('assigns the deposit address once', () => {
    const intent = withAddress();
    expect(intent.state.crypto.address).toBe('0xabc');
    expect(intent.state.status).toBe('requires_payment_method');
    expect(intent.assignCryptoAddress('0xabc', at(6))).toEqual([]);
    expect(codeOf(() => intent.assignCryptoAddress('0xdef', at(6)))).toBe('invalid_state');
  });

  it('needs crypto among the methods', () => {
    expect(codeOf(() => newIntent({ methods: ['togo'] }).assignCryptoAddress('0xabc', at(5)))).toBe('payment_methods_unavailable');
  });

  it('needs an address before a crypto submission or transfer', () => {
    const intent = newIntent();
    expect(codeOf(() => intent.submitMethod('crypto', at(5)))).toBe('invalid_state');
    expect(codeOf(() => intent.recordCryptoTransfer({ txid: '0x1', amountCents: 100, now: at(5) }))).toBe('invalid_state');
  });

  it('moves to processing on the first transfer and tracks what is missing', () => {
    let intent = withAddress();
    const first = intent.recordCryptoTransfer({ txid: '0x1', amountCents: 5000, now: at(10) });
    expect(types(first)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentCryptoTransferReceived']);
    intent = intent.apply(first);
    expect(intent.state).toMatchObject({ status: 'processing', paymentMethod: 'crypto' });
    expect(intent.state.crypto).toMatchObject({ receivedCents: 5000, remainingCents: 2400, overpaymentCents: 0, txid: '0x1' });

    expect(codeOf(() => intent.succeed({ paymentId: newPaymentId(), now: at(11) }))).toBe('invalid_state');

    const second = intent.recordCryptoTransfer({ txid: '0x2', amountCents: 3000, now: at(12) });
    expect(types(second)).toEqual(['PaymentIntentCryptoTransferReceived']);
    intent = intent.apply(second);
    expect(intent.state.crypto).toMatchObject({ receivedCents: 8000, remainingCents: 0, overpaymentCents: 600, txid: '0x2' });

    intent = intent.apply(intent.succeed({ paymentId: newPaymentId(), now: at(13) }));
    // The payment is what was received (80.00, over-payment included), its fee 1.5 % of that.
    expect(intent.state).toMatchObject({ status: 'succeeded', paidAmountCents: 8000, feeCents: 120, netCents: 7880 });
  });

  it('counts a transfer reported twice once, even after payment', () => {
    let intent = withAddress();
    intent = intent.apply(intent.recordCryptoTransfer({ txid: '0x1', amountCents: 7400, now: at(10) }));
    expect(intent.recordCryptoTransfer({ txid: '0x1', amountCents: 7400, now: at(11) })).toEqual([]);
    intent = intent.apply(intent.succeed({ paymentId: newPaymentId(), now: at(12) }));
    expect(intent.recordCryptoTransfer({ txid: '0x1', amountCents: 7400, now: at(13) })).toEqual([]);
  });

  it('refuses a transfer while another method is processing, or a bad amount', () => {
    let intent = withAddress();
    intent = intent.apply(intent.submitMethod('togo', at(10)));
    expect(codeOf(() => intent.recordCryptoTransfer({ txid: '0x1', amountCents: 100, now: at(11) }))).toBe('invalid_state');
    expect(codeOf(() => withAddress().recordCryptoTransfer({ txid: '0x1', amountCents: 0, now: at(11) }))).toBe('invalid_request');
  });

  it('once crypto has arrived, it can only be completed in crypto: no failing, cancelling or paying another way', () => {
    const created = newIntent({ environment: 'test' });
    let intent = created.apply(created.assignCryptoAddress('0xabc', at(5)));
    intent = intent.apply(intent.recordCryptoTransfer({ txid: '0x1', amountCents: 2000, now: at(10) }));
    expect(intent.state).toMatchObject({ status: 'processing', paymentMethod: 'crypto' });
    expect(codeOf(() => intent.fail({ now: at(11) }))).toBe('invalid_state');
    expect(codeOf(() => intent.simulate({ result: 'failed', now: at(11) }))).toBe('invalid_state');
    expect(codeOf(() => intent.simulate({ result: 'succeeded', method: 'togo', paymentId: newPaymentId(), now: at(11) }))).toBe('invalid_request');
    // An intent that failed with crypto in hand (recorded before this rule) still takes only crypto.
    const failed = intent.apply([{ type: 'PaymentIntentPaymentFailed', data: { reason: 'declined', failedAt: at(12).toISOString() } }]);
    expect(failed.state.status).toBe('failed');
    expect(codeOf(() => failed.cancel({ now: at(13) }))).toBe('invalid_state');
    expect(codeOf(() => failed.submitMethod('togo', at(13)))).toBe('invalid_state');
    expect(codeOf(() => failed.simulate({ result: 'succeeded', method: 'togo', paymentId: newPaymentId(), now: at(13) }))).toBe('invalid_state');
    // The rest in crypto completes it, the fee on the amount asked.
    const paid = failed.apply(failed.simulate({ result: 'succeeded', paymentId: newPaymentId(), now: at(14) }));
    expect(paid.state).toMatchObject({ status: 'succeeded', paymentMethod: 'crypto' });
    expect(paid.state.crypto).toMatchObject({ receivedCents: 7400, remainingCents: 0 });
  });

  it('lets the customer submit crypto once the address is known', () => {
    const intent = withAddress();
    expect(intent.apply(intent.submitMethod('crypto', at(10))).state.status).toBe('processing');
  });
});

describe('PaymentIntent chain transfers', () => {
  const chain = (txHash: string, logIndex = 0) => ({
    chainId: 31337,
    chainName: 'anvil',
    token: '0xtoken',
    tokenSymbol: 'USDT',
    txHash,
    logIndex,
    blockNumber: '12',
    units: '0',
  });
  const send = (intent: PaymentIntent, txHash: string, amountCents: number, seconds: number, logIndex = 0) =>
    intent.receiveChainTransfer({ key: `31337:${txHash}:${logIndex}`, amountCents, chain: chain(txHash, logIndex), paymentId: newPaymentId(), now: at(seconds) });
  const withAddress = () => {
    const intent = newIntent();
    return intent.apply(intent.assignCryptoAddress('0xabc', at(5)));
  };

  it('pays an open intent once the amount is reached, counting each (chain, tx, log index) once', () => {
    let intent = withAddress();
    intent = intent.apply(send(intent, '0x1', 5000, 10));
    expect(intent.state).toMatchObject({ status: 'processing', paymentMethod: 'crypto' });
    expect(intent.state.crypto).toMatchObject({ receivedCents: 5000, remainingCents: 2400, txid: '0x1' });
    expect(send(intent, '0x1', 5000, 11)).toEqual([]);
    // Another Transfer log of the same transaction is another transfer; the txid shown is the hash.
    const rest = send(intent, '0x1', 3000, 12, 1);
    expect(types(rest)).toEqual(['PaymentIntentCryptoTransferReceived', 'PaymentIntentSucceeded']);
    intent = intent.apply(rest);
    expect(intent.state).toMatchObject({ status: 'succeeded', paidAmountCents: 8000, feeCents: 120, netCents: 7880 });
    expect(intent.state.crypto).toMatchObject({ receivedCents: 8000, overpaymentCents: 600, txid: '0x1' });
  });

  it('records a transfer to a paid intent as over-payment, never a second payment', () => {
    let intent = withAddress();
    intent = intent.apply(send(intent, '0x1', 7400, 10));
    const paymentId = intent.state.paymentId;
    const extra = send(intent, '0x2', 100, 20);
    expect(types(extra)).toEqual(['PaymentIntentCryptoTransferReceived']);
    intent = intent.apply(extra);
    expect(intent.state).toMatchObject({ status: 'succeeded', paymentId, paidAmountCents: 7400 });
    expect(intent.state.crypto).toMatchObject({ receivedCents: 7500, overpaymentCents: 100, txid: '0x2' });
  });

  it('after expiry: enough pays it late, short of it is recorded on the expired intent', () => {
    let intent = withAddress();
    const short = send(intent, '0x1', 1000, 1800);
    expect(types(short)).toEqual(['PaymentIntentCryptoTransferReceived']);
    intent = intent.apply(short);
    expect(intent.effectiveStatus(at(1801))).toBe('expired');
    expect(intent.state.crypto).toMatchObject({ receivedCents: 1000, remainingCents: 6400 });
    intent = intent.apply(intent.expire(at(1802)));
    const rest = send(intent, '0x2', 6400, 1900);
    expect(types(rest)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentCryptoTransferReceived', 'PaymentIntentSucceeded']);
    intent = intent.apply(rest);
    expect(intent.state).toMatchObject({ status: 'succeeded', paidAt: at(1900).toISOString() });
  });

  it('records a transfer to a cancelled intent, or short of the amount beside another method\'s open attempt, without changing its status', () => {
    const open = withAddress();
    const cancelled = open.apply(open.cancel({ now: at(6) }));
    expect(types(send(cancelled, '0x1', 7400, 10))).toEqual(['PaymentIntentCryptoTransferReceived']);
    const lahza = open.apply(open.submitMethod('lahza', at(6)));
    const mixed = lahza.apply(send(lahza, '0x1', 1000, 10));
    expect(mixed.state).toMatchObject({ status: 'processing', paymentMethod: 'lahza' });
    // The card attempt may still fail; the intent then takes only crypto, and the rest completes it.
    const failed = mixed.apply(mixed.fail({ now: at(11) }));
    expect(codeOf(() => failed.submitMethod('togo', at(12)))).toBe('invalid_state');
    const rest = failed.apply(send(failed, '0x2', 6400, 13));
    expect(rest.state).toMatchObject({ status: 'succeeded', paymentMethod: 'crypto', paidAmountCents: 7400 });
  });

  it.each(['lahza', 'togo'] as const)('completes the intent in crypto when the amount arrives beside an open %s attempt; that attempt\'s outcome then changes nothing', (method) => {
    const open = withAddress();
    const attempting = open.apply(open.submitMethod(method, at(6)));
    // Part of it first (recorded), then the rest: the money is in hand, so the intent is paid in crypto.
    const part = attempting.apply(send(attempting, '0x1', 4000, 10));
    expect(part.state).toMatchObject({ status: 'processing', paymentMethod: method });
    const events = send(part, '0x2', 3400, 11);
    expect(types(events)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentCryptoTransferReceived', 'PaymentIntentSucceeded']);
    const paid = part.apply(events);
    expect(paid.state).toMatchObject({ status: 'succeeded', paymentMethod: 'crypto', paidAmountCents: 7400 });
    expect(paid.state.crypto).toMatchObject({ receivedCents: 7400, remainingCents: 0 });
    // The other attempt's success is a second payment of a paid session (its caller keeps it for a refund).
    expect(codeOf(() => paid.confirmProviderPayment({ method, paymentId: newPaymentId(), now: at(12) }))).toBe('invalid_state');
    // One transfer of the whole amount does the same.
    const whole = attempting.apply(send(attempting, '0x3', 7500, 10));
    expect(whole.state).toMatchObject({ status: 'succeeded', paymentMethod: 'crypto', paidAmountCents: 7500 });
  });

  it('a reversal stops counting the transfer on an unpaid intent (mined again, it counts again) and leaves a paid one paid', () => {
    let intent = withAddress();
    intent = intent.apply(send(intent, '0x1', 5000, 10));
    const reversal = intent.reverseChainTransfer({ key: '31337:0x1:0', chain: chain('0x1'), now: at(11) });
    expect(types(reversal)).toEqual(['PaymentIntentCryptoTransferReversed']);
    intent = intent.apply(reversal);
    expect(intent.state.crypto).toMatchObject({ receivedCents: 0, remainingCents: 7400, txid: null });
    expect(intent.reverseChainTransfer({ key: '31337:0x1:0', chain: chain('0x1'), now: at(12) })).toEqual([]);
    intent = intent.apply(send(intent, '0x1', 5000, 13));
    expect(intent.state.crypto.receivedCents).toBe(5000);

    let paid = withAddress();
    paid = paid.apply(send(paid, '0x1', 7400, 10));
    paid = paid.apply(paid.reverseChainTransfer({ key: '31337:0x1:0', chain: chain('0x1'), now: at(11) }));
    expect(paid.state).toMatchObject({ status: 'succeeded', paidAmountCents: 7400 });
    expect(paid.state.crypto).toMatchObject({ receivedCents: 7400, reversed: ['31337:0x1:0'] });
    expect(paid.reverseChainTransfer({ key: '31337:0x1:0', chain: chain('0x1'), now: at(12) })).toEqual([]);
    expect(send(paid, '0x1', 7400, 13)).toEqual([]); // mined again: already counted
  });
});

describe('PaymentIntent.simulate', () => {
  it('is for test intents only', () => {
    const intent = intentIn('requires_payment_method');
    expect(codeOf(() => intent.simulate({ result: 'succeeded', paymentId: newPaymentId(), now: at(5) }))).toBe('live_mode_not_allowed');
  });

  it('goes through processing to succeeded with the first available method', () => {
    const intent = newIntent({ environment: 'test', methods: ['lahza', 'togo'] });
    const paymentId = newPaymentId();
    const events = intent.simulate({ result: 'succeeded', paymentId, now: at(5) });
    expect(types(events)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentSucceeded']);
    expect(intent.apply(events).state).toMatchObject({ status: 'succeeded', paymentMethod: 'lahza', paymentId, feeCents: 111, version: 3 });
  });

  it('goes through processing to failed with the method asked', () => {
    const intent = newIntent({ environment: 'test' });
    const events = intent.simulate({ result: 'failed', method: 'togo', now: at(5) });
    expect(types(events)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentPaymentFailed']);
    expect(intent.apply(events).state).toMatchObject({ status: 'failed', paymentMethod: 'togo', failureReason: 'simulated_failure' });
  });

  it('finishes an intent already processing with one event', () => {
    let intent = newIntent({ environment: 'test' });
    intent = intent.apply(intent.submitMethod('togo', at(5)));
    expect(types(intent.simulate({ result: 'succeeded', paymentId: newPaymentId(), now: at(6) }))).toEqual(['PaymentIntentSucceeded']);
    expect(codeOf(() => intent.simulate({ result: 'failed', method: 'lahza', now: at(6) }))).toBe('invalid_request');
  });

  it('records the missing crypto as a simulated transfer', () => {
    const intent = newIntent({ environment: 'test', methods: ['crypto'] });
    const events = intent.simulate({ result: 'succeeded', paymentId: '123', now: at(5) });
    expect(types(events)).toEqual(['PaymentIntentProcessingStarted', 'PaymentIntentCryptoTransferReceived', 'PaymentIntentSucceeded']);
    expect(intent.apply(events).state.crypto).toMatchObject({ receivedCents: 7400, remainingCents: 0, txid: 'simulated_123' });
  });

  it('refuses an unavailable method and final or expired intents', () => {
    const intent = newIntent({ environment: 'test', methods: ['togo'] });
    expect(codeOf(() => intent.simulate({ result: 'failed', method: 'lahza', now: at(5) }))).toBe('payment_methods_unavailable');
    expect(codeOf(() => intent.simulate({ result: 'failed', now: at(1800) }))).toBe('invalid_state');
    const cancelled = intentIn('cancelled', { environment: 'test' });
    expect(codeOf(() => cancelled.simulate({ result: 'failed', now: at(20) }))).toBe('invalid_state');
  });
});

describe('PaymentIntent stream', () => {
  it('rebuilds the same state from its events after a JSON round trip', () => {
    const intent = newIntent();
    const events: PaymentIntentEvent[] = [...PaymentIntent.create(createInput({ id: intent.id }))];
    let current = PaymentIntent.fromEvents(events);
    for (const step of [
      (i: PaymentIntent) => i.submitMethod('togo', at(10)),
      (i: PaymentIntent) => i.fail({ now: at(11) }),
      (i: PaymentIntent) => i.submitMethod('lahza', at(12)),
      (i: PaymentIntent) => i.succeed({ paymentId: newPaymentId(), now: at(13) }),
    ]) {
      const next = step(current);
      events.push(...next);
      current = current.apply(next);
    }
    const stored = JSON.parse(JSON.stringify(events)) as PaymentIntentEvent[];
    expect(PaymentIntent.fromEvents(stored).state).toEqual(current.state);
    expect(current.version).toBe(5);
  });

  it('refuses a stream that does not start with the creation, or creates twice', () => {
    expect(() => PaymentIntent.fromEvents([])).toThrow(/starts with/);
    const created = PaymentIntent.create(createInput());
    expect(() => PaymentIntent.fromEvents([...created, ...created])).toThrow(/created twice/);
  });

  it('throws DomainError instances with a message', () => {
    try {
      intentIn('succeeded').cancel({ now: at(30) });
      throw new Error('unreachable');
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ name: 'DomainError', code: 'invalid_state', message: 'cannot cancel a payment intent that is succeeded' });
    }
  });

  it('uses the time given, never the clock', () => {
    expect(newIntent().state.createdAt).toBe(T0.toISOString());
  });
});
