// The payment intent use cases with the command pipeline on an in-memory store: no Postgres, no Nest.
import { DEFAULT_FEE_SCHEDULE } from '@payments/money';
import { SessionCommands } from '../command-pipeline/session-commands';
import { InMemorySessionStore } from '../command-pipeline/testing/in-memory-session-store';
import type { PaymentIntentEvent, PaymentIntentResource, PaymentIntentState } from '../domain';
import { T0 } from '../domain/payment-intent.fixtures';
import type { Clock } from '../shared/clock';
import { CancelPaymentIntent } from './cancel-payment-intent';
import type { CreateSessionInput } from '../commands/session-inputs';
import { CreatePaymentIntent } from './create-payment-intent';
import { paymentIntentKind } from './payment-intent.kind';
import { SimulateCryptoTransfer } from './simulate-crypto-transfer';
import { SimulatePaymentIntent } from './simulate-payment-intent';

const clock: Clock = { now: () => T0 };
const test = { merchantId: 'acct_1', environment: 'test' as const };

function setUp() {
  const store = new InMemorySessionStore<PaymentIntentState, PaymentIntentEvent, PaymentIntentResource>();
  const intents = new SessionCommands(paymentIntentKind('https://pay.example.com'), store, clock, 86_400);
  return { store, intents, create: new CreatePaymentIntent(intents, () => ['togo', 'lahza', 'crypto']), simulate: new SimulatePaymentIntent(intents), cancel: new CancelPaymentIntent(intents) };
}

const input = (overrides: Partial<CreateSessionInput> = {}): CreateSessionInput => ({
  scope: test,
  idempotencyKey: 'order-42',
  fingerprint: 'f1',
  correlationId: 'req_1',
  params: {
    amountCents: 7400,
    currency: 'USD',
    externalRef: 'order-42',
    description: null,
    successUrl: null,
    cancelUrl: null,
    methods: null,
    customer: null,
    metadata: null,
    expiresInSeconds: undefined,
  },
  enabledMethods: ['togo', 'lahza', 'crypto'],
  feeSchedule: DEFAULT_FEE_SCHEDULE,
  ...overrides,
});

const codeOf = async (promise: Promise<unknown>) => promise.then(() => 'none', (error: { code?: string }) => error.code ?? String(error));

describe('CreatePaymentIntent', () => {
  it('creates the intent with its created event, and answers the same intent for the same key', async () => {
    const { store, create } = setUp();
    const first = await create.execute(input());
    expect(first).toMatchObject({ object: 'payment_intent', status: 'requires_payment_method', amount: '74.00' });
    expect(store.outbox).toEqual([expect.objectContaining({ type: 'payment_intent.created', sequence: 1, data: { object: first } })]);
    expect(await create.execute(input({ correlationId: 'req_2' }))).toEqual(first);
    expect(store.streams.size).toBe(1);
  });

  it('refuses the key with other params, yet replays it even when the request would now be refused', async () => {
    const { create } = setUp();
    const first = await create.execute(input());
    expect(await codeOf(create.execute(input({ fingerprint: 'f2' })))).toBe('idempotency_key_reused');
    // The merchant has since disabled every method: a new create is refused, the replay still answers.
    expect(await codeOf(create.execute(input({ idempotencyKey: 'order-43', enabledMethods: [] })))).toBe('payment_methods_unavailable');
    expect((await create.execute(input({ enabledMethods: [] }))).id).toBe(first.id);
  });
});

describe('SimulatePaymentIntent', () => {
  it('refuses a live intent', async () => {
    const { create, simulate } = setUp();
    const live = await create.execute(input({ scope: { ...test, environment: 'live' } }));
    const caller = { correlationId: 'req_3' };
    expect(await codeOf(simulate.execute({ scope: { ...test, environment: 'live' }, id: live.id, result: 'succeeded', caller }))).toBe('live_mode_not_allowed');
  });

  it('a success writes the payment once and its public events, folded in order', async () => {
    const { store, create, simulate } = setUp();
    const created = await create.execute(input());
    const paid = await simulate.execute({ scope: test, id: created.id, result: 'succeeded', method: 'togo', caller: { correlationId: 'req_4', commandId: 'cmd_1' } });
    expect(paid).toMatchObject({ status: 'succeeded', fee: '0.37' });
    expect(store.payments).toEqual([expect.objectContaining({ sourceId: created.id, amountCents: 7400, feeCents: 37, netCents: 7363 })]);
    expect(store.outbox.map((e) => [(e as { type: string }).type, (e as { sequence: number }).sequence])).toEqual([
      ['payment_intent.created', 1],
      ['payment_intent.processing', 2],
      ['payment_intent.succeeded', 3],
    ]);
    // The same command sent again (its answer was lost) acts once.
    const again = await simulate.execute({ scope: test, id: created.id, result: 'succeeded', caller: { correlationId: 'req_5', commandId: 'cmd_1' } });
    expect(again.status).toBe('succeeded');
    expect(store.payments).toHaveLength(1);
  });

  it('a command that lost a race decides again on the newer state', async () => {
    const { store, create, simulate, cancel } = setUp();
    const created = await create.execute(input());
    // The merchant's cancel lands between the simulation's read and its write.
    store.beforeNextWrite = () => cancel.execute({ scope: test, id: created.id, caller: { correlationId: 'req_6' } });
    expect(await codeOf(simulate.execute({ scope: test, id: created.id, result: 'succeeded', caller: { correlationId: 'req_7' } }))).toBe('invalid_state');
    expect((await store.findResource(test, created.id))?.status).toBe('cancelled');
    expect(store.payments).toHaveLength(0);
  });
});

describe('SimulateCryptoTransfer', () => {
  it('leaves the rest due after a short transfer, then pays once the transfers pass the amount, keeping the overpayment', async () => {
    const { store, intents, create } = setUp();
    const transfer = new SimulateCryptoTransfer(intents);
    const created = await create.execute(input());
    const partly = await transfer.execute({ scope: test, id: created.id, amountCents: 3000, caller: { correlationId: 'req_8', commandId: 'cmd_t1' } });
    expect(partly).toMatchObject({ status: 'processing', payment_method: 'crypto', crypto: { received_amount: '30.00', remaining_amount: '44.00' } });
    expect(partly.crypto.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(store.outbox.map((e) => (e as { type: string }).type)).toEqual(['payment_intent.created', 'payment_intent.processing', 'payment_intent.partially_paid']);
    // The same command again (its answer lost) records no second transfer.
    expect(await transfer.execute({ scope: test, id: created.id, amountCents: 3000, caller: { correlationId: 'req_9', commandId: 'cmd_t1' } })).toEqual(partly);
    const paid = await transfer.execute({ scope: test, id: created.id, amountCents: 5000, caller: { correlationId: 'req_10', commandId: 'cmd_t2' } });
    expect(paid).toMatchObject({ status: 'succeeded', crypto: { received_amount: '80.00', remaining_amount: '0.00', overpayment_amount: '6.00' } });
    expect(store.payments).toHaveLength(1);
  });

  it('refuses a live intent', async () => {
    const { intents, create } = setUp();
    const live = await create.execute(input({ scope: { ...test, environment: 'live' } }));
    expect(await codeOf(new SimulateCryptoTransfer(intents).execute({ scope: { ...test, environment: 'live' }, id: live.id, amountCents: 100, caller: { correlationId: 'req_11' } }))).toBe('live_mode_not_allowed');
  });
});
