// Command bodies, checked against their schema in @payments/contracts (the same one the gateway's validation and
// the API document take their limits from), then turned into the domain's terms. Nothing of the wrong type or
// size reaches an event, which is kept forever; every failure is a 400 naming the field.
import { validateCommand, type SessionsCommandName } from '@payments/contracts';
import type { Environment } from '@payments/ids';
import { isFeeMethod, merchantFeeSchedule as mergedFeeSchedule, parseMoneyString, type FeeMethod, type FeeSchedule } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { Customer, Metadata } from '../domain';

export interface Scope {
  readonly merchantId: string;
  readonly environment: Environment;
}

export interface ParsedSessionParams {
  readonly amountCents: number;
  readonly currency: string;
  readonly externalRef: string | null;
  readonly description: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  /** As asked, not yet checked against the merchant's methods. */
  readonly methods: readonly string[] | null;
  readonly customer: Customer | null;
  readonly metadata: Metadata | null;
  readonly expiresInSeconds: number | undefined;
}

export interface ParsedMerchantSettings {
  readonly enabledMethods: readonly string[];
  readonly feeOverrides: Partial<Record<FeeMethod, number>>;
}

// JSON Schema cannot bound a document's size: metadata of 50 keys by 500 characters stays under this anyway.
const METADATA_MAX_BYTES = 32 * 1024;

function invalid(param: string, message: string): ApiError {
  return new ApiError('invalid_request', `${param} ${message}`, param);
}

/** Checks the whole command against its schema, then answers whose resource it is about. */
export function parseCommand(name: SessionsCommandName, body: unknown): Scope & { command: Record<string, unknown> } {
  const check = validateCommand(name, body);
  if (!check.ok) {
    if (check.param === 'idempotency_key') throw new ApiError('idempotency_key_required', check.message, 'idempotency_key');
    throw new ApiError('invalid_request', check.message, check.param);
  }
  const command = body as Record<string, unknown> & { merchant_id: string; environment: Environment };
  return { merchantId: command.merchant_id, environment: command.environment, command };
}

export function parseMerchantSettings(value: unknown): ParsedMerchantSettings {
  const merchant = value as { enabled_methods: string[]; fee_overrides?: Record<string, number> };
  const feeOverrides: Partial<Record<FeeMethod, number>> = {};
  for (const [method, rate] of Object.entries(merchant.fee_overrides ?? {})) {
    if (!isFeeMethod(method)) throw invalid('merchant.fee_overrides', `has an entry for ${method}, which is not a payment method`);
    feeOverrides[method] = rate;
  }
  return { enabledMethods: merchant.enabled_methods, feeOverrides };
}

/**
 * The merchant's fee schedule as the gateway sent it (its standard schedule with the merchant's own rates: every
 * method), or the default schedule with what it names.
 */
export function merchantFeeSchedule(overrides: Partial<Record<FeeMethod, number>>): FeeSchedule {
  try {
    return mergedFeeSchedule(overrides);
  } catch (error) {
    if (error instanceof RangeError) throw invalid('merchant.fee_overrides', error.message);
    throw error;
  }
}

/** The validated params of a create, in the domain's terms (cents, nulls for what was not given). */
export function parseSessionParams(value: unknown): ParsedSessionParams {
  const params = value as Record<string, unknown>;
  const amount = parseMoneyString(params.amount);
  if (!amount.ok) throw invalid('amount', amount.message);
  const metadata = (params.metadata as Metadata | undefined) ?? null;
  if (metadata !== null && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) throw invalid('metadata', 'is too large');
  return {
    amountCents: amount.cents,
    currency: params.currency as string,
    externalRef: (params.external_ref as string | undefined) ?? null,
    description: (params.description as string | undefined) ?? null,
    successUrl: (params.success_url as string | undefined) ?? null,
    cancelUrl: (params.cancel_url as string | undefined) ?? null,
    methods: (params.methods as string[] | undefined) ?? null,
    customer: (params.customer as Customer | undefined) ?? null,
    metadata,
    expiresInSeconds: params.expires_in as number | undefined,
  };
}
