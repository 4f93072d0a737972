// Command bodies checked against their schema in @payments/contracts (the one the gateway validated them with),
// then read in the service's terms. Every failure is a 400 naming the field.
import { validateCommand, type RefundsCommandName } from '@payments/contracts';
import { MAX_PAYMENT_CENTS, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { Scope } from '../refunds/refunds.repository';

export function parseCommand<T extends { merchant_id: string; environment: 'live' | 'test' }>(name: RefundsCommandName, body: unknown): { scope: Scope; command: T } {
  const check = validateCommand(name, body);
  if (!check.ok) {
    if (check.param === 'idempotency_key') throw new ApiError('idempotency_key_required', check.message, 'idempotency_key');
    throw new ApiError('invalid_request', check.message, check.param);
  }
  const command = body as T;
  return { scope: { merchantId: command.merchant_id, environment: command.environment }, command };
}

/** A MoneyString of a payment or a refund (the schema bounds a command's), in cents (a fee may be zero). */
export function centsOf(value: string, param: string, minCents = 1): number {
  const parsed = parseMoneyString(value, { minCents, maxCents: MAX_PAYMENT_CENTS });
  if (!parsed.ok) throw new ApiError('invalid_request', `${param} ${parsed.message}`, param);
  return parsed.cents;
}
