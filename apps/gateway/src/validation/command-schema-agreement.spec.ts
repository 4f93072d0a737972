import type { ArgumentMetadata } from '@nestjs/common';
import { LEDGER_COMMANDS, validateCommand, WEBHOOKS_COMMANDS, type SessionsCommandName } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import { ListBalanceTransactionsQuery } from '../balance/list-balance-transactions.query';
import { CreateInvoiceDto } from '../invoices/create-invoice.dto';
import { CreatePaymentIntentDto } from '../payment-intents/create-payment-intent.dto';
import { ListDeliveriesQuery } from '../webhook-endpoints/list-deliveries.query';
import { apiValidationPipe } from './api-validation.pipe';

// The gateway validates the API body with its DTOs; sessions validates the command with the schema in
// @payments/contracts. Both take their limits from that schema: at every limit both accept, one past it both
// refuse, naming the same field. (They disagreed before: e-mail 254 against 320, phone 40 against 64.)

type Outcome = { ok: true } | { ok: false; param?: string };

async function atGateway(dto: typeof CreatePaymentIntentDto | typeof CreateInvoiceDto, value: object): Promise<Outcome> {
  const metadata: ArgumentMetadata = { type: 'body', metatype: dto };
  try {
    await apiValidationPipe({ forbidUnknown: dto === CreateInvoiceDto }).transform(value, metadata);
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, param: error.param };
    throw error;
  }
}

function atOwner(command: SessionsCommandName, params: object): Outcome {
  const check = validateCommand(command, { merchant_id: 'acct_1', environment: 'test', idempotency_key: 'k', merchant: { enabled_methods: ['togo'] }, params });
  return check.ok ? { ok: true } : { ok: false, param: check.param };
}

const surfaces = [
  ['payment intents', CreatePaymentIntentDto, 'payment-intents.create'],
  ['invoices', CreateInvoiceDto, 'invoices.create'],
] as const;

// [field, body with a value of length/size n, the limit]
const limits: Array<[string, (n: number) => object, number]> = [
  ['external_ref', (n) => ({ external_ref: 'r'.repeat(n) }), 120],
  ['description', (n) => ({ description: 'd'.repeat(n) }), 255],
  ['customer.name', (n) => ({ customer: { name: 'n'.repeat(n) } }), 160],
  ['customer.email', (n) => ({ customer: { email: emailOfLength(n) } }), 254],
  ['customer.phone', (n) => ({ customer: { phone: '1'.repeat(n) } }), 40],
  ['customer.city', (n) => ({ customer: { city: 'c'.repeat(n) } }), 120],
  ['metadata', (n) => ({ metadata: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) }), 50],
  ['metadata', (n) => ({ metadata: { ['k'.repeat(n)]: 'v' } }), 40],
  ['metadata', (n) => ({ metadata: { note: 'x'.repeat(n) } }), 500],
  // Characters outside the BMP count once (two UTF-16 units each), in every layer.
  ['metadata', (n) => ({ metadata: { ['😀'.repeat(n)]: 'v' } }), 40],
  ['metadata', (n) => ({ metadata: { note: '😀'.repeat(n) } }), 500],
  ['description', (n) => ({ description: '😀'.repeat(n) }), 255],
];

/** A deliverable-looking address of exactly n characters: a 64-character local part, labels of at most 63. */
function emailOfLength(n: number): string {
  return `${'e'.repeat(64)}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(n - 197)}.com`;
}

describe.each(surfaces)('the gateway and sessions agree on the limits of %s', (_surface, dto, command) => {
  test.each(limits)('%s at its limit and one past it (limit %#)', async (param, body, limit) => {
    const base = { amount: '10.00', currency: 'USD' };
    const at = { ...base, ...body(limit) };
    const past = { ...base, ...body(limit + 1) };
    expect(await atGateway(dto, at)).toEqual({ ok: true });
    expect(atOwner(command, at)).toEqual({ ok: true });
    expect(await atGateway(dto, past)).toEqual({ ok: false, param });
    expect(atOwner(command, past)).toEqual({ ok: false, param });
  });

  test.each([
    ['amount', { amount: '0.49' }],
    ['amount', { amount: '1000000.00' }],
    ['amount', { amount: '1.234' }],
    ['currency', { currency: 'EUR' }],
    ['expires_in', { expires_in: 299 }],
    ['expires_in', { expires_in: 86401 }],
    ['success_url', { success_url: 'http://example.com' }],
    ['customer.country', { customer: { country: 'USA' } }],
    ['customer.vip', { customer: { vip: true } }],
    ['methods', { methods: ['togo', 'togo'] }],
    ['customer.email', { customer: { email: 'not-an-address' } }],
    ['customer.email', { customer: { email: 'jane@' } }],
    ['customer.email', { customer: { email: 'jane doe@example.com' } }],
  ])('both refuse %s: %j', async (param, change) => {
    const value = { amount: '10.00', currency: 'USD', ...change };
    expect(await atGateway(dto, value)).toEqual({ ok: false, param });
    expect(atOwner(command, value)).toEqual({ ok: false, param });
  });

  // The gateway checked e-mail with class-validator's own rule, which refused a one-letter top-level domain.
  test.each(['a@b.c', 'jane.doe+tag@example.co.uk', "o'brien@example.com"])('both accept the e-mail %s', async (email) => {
    const value = { amount: '10.00', currency: 'USD', customer: { email } };
    expect(await atGateway(dto, value)).toEqual({ ok: true });
    expect(atOwner(command, value)).toEqual({ ok: true });
  });
});

// The ledger and the webhook-dispatcher check the list commands the gateway builds from these queries against their
// schemas (they trusted the gateway before): the same limits, so a command the gateway sends is never refused and
// one it would refuse never runs.
async function queryAtGateway(dto: typeof ListBalanceTransactionsQuery | typeof ListDeliveriesQuery, query: Record<string, string>): Promise<Outcome> {
  try {
    await apiValidationPipe({ forbidUnknown: true }).transform(query, { type: 'query', metatype: dto });
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, param: error.param };
    throw error;
  }
}

const lists = [
  ['balance transactions', ListBalanceTransactionsQuery, LEDGER_COMMANDS.listBalanceTransactions, { merchant_id: 'acct_1', environment: 'test' }, 'txn_'],
  ['webhook deliveries', ListDeliveriesQuery, WEBHOOKS_COMMANDS.listDeliveries, { merchant_id: 'acct_1', environment: 'test', endpoint_id: `we_${'e'.repeat(24)}` }, 'wd_'],
] as const;

describe.each(lists)('the gateway and the owner agree on the list query of %s', (_list, dto, command, scope, idPrefix) => {
  test.each([
    ['1', true],
    ['100', true],
    ['0', false],
    ['101', false],
  ])('limit %s', async (limit, accepted) => {
    const expected: Outcome = accepted ? { ok: true } : { ok: false, param: 'limit' };
    expect(await queryAtGateway(dto, { limit })).toEqual(expected);
    const check = validateCommand(command, { ...scope, limit: Number(limit) });
    expect(check.ok ? { ok: true } : { ok: false, param: check.param }).toEqual(expected);
  });

  test.each([`${'a'.repeat(24)}`, `${'a'.repeat(23)}`, 'a-b', 'a'.repeat(65), "x' OR '1'='1"])('starting_after %s', async (id) => {
    const starting_after = `${idPrefix}${id}`;
    const check = validateCommand(command, { ...scope, limit: 10, starting_after });
    const atOwner: Outcome = check.ok ? { ok: true } : { ok: false, param: check.param };
    expect(atOwner).toEqual(await queryAtGateway(dto, { starting_after }));
    // An id the API issues passes both.
    if (id === 'a'.repeat(24)) expect(atOwner).toEqual({ ok: true });
  });
});
