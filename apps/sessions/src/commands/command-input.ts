// Cheap re-checks of command bodies. The gateway validated the request already; these only make sure nothing
// of the wrong type or size reaches an event, which is kept forever. Every failure is a 400 naming the field.
import { isEnvironment, type Environment } from '@payments/ids';
import { feeSchedule, isFeeMethod, parseMoneyString, type FeeMethod, type FeeSchedule } from '@payments/money';
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

const MAX_IDEMPOTENCY_KEY = 190;
const CUSTOMER_LIMITS: Record<keyof Customer, number> = { name: 160, email: 320, phone: 64, city: 120, country: 2 };
const METADATA_MAX_BYTES = 32 * 1024;

function invalid(param: string, message: string): ApiError {
  return new ApiError('invalid_request', `${param} ${message}`, param);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, param: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(param, 'must be an object');
  return value;
}

export function parseScope(body: unknown): Scope {
  const command = requireObject(body, 'body');
  const merchantId = command.merchant_id;
  if (typeof merchantId !== 'string' || merchantId.length === 0 || merchantId.length > 64) {
    throw invalid('merchant_id', 'must be a merchant id');
  }
  if (!isEnvironment(command.environment)) throw invalid('environment', 'must be live or test');
  return { merchantId, environment: command.environment };
}

/** The object id of a get/simulate/cancel command (its format is checked by the caller, as unknown ids are 404). */
export function parseId(body: Record<string, unknown>): string {
  if (typeof body.id !== 'string' || body.id.length === 0 || body.id.length > 100) throw invalid('id', 'must be an id');
  return body.id;
}

export function parseIdempotencyKey(body: Record<string, unknown>): string {
  const key = body.idempotency_key;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    throw new ApiError('idempotency_key_required', `idempotency_key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`, 'idempotency_key');
  }
  return key;
}

export function parseMerchantSettings(value: unknown): ParsedMerchantSettings {
  const merchant = requireObject(value, 'merchant');
  const enabled = merchant.enabled_methods;
  if (!Array.isArray(enabled) || !enabled.every((m): m is string => typeof m === 'string')) {
    throw invalid('merchant.enabled_methods', 'must be a list of methods');
  }
  const overrides = merchant.fee_overrides ?? {};
  if (!isPlainObject(overrides)) throw invalid('merchant.fee_overrides', 'must be an object');
  const feeOverrides: Partial<Record<FeeMethod, number>> = {};
  for (const [method, rate] of Object.entries(overrides)) {
    if (!isFeeMethod(method) || typeof rate !== 'number') throw invalid('merchant.fee_overrides', `has an invalid entry for ${method}`);
    feeOverrides[method] = rate;
  }
  return { enabledMethods: enabled, feeOverrides };
}

/** The default schedule with the merchant's overrides; `togo` also prices `wallet` unless that has its own. */
export function merchantFeeSchedule(overrides: Partial<Record<FeeMethod, number>>): FeeSchedule {
  const merged = overrides.wallet === undefined && overrides.togo !== undefined ? { ...overrides, wallet: overrides.togo } : overrides;
  try {
    return feeSchedule(merged);
  } catch (error) {
    if (error instanceof RangeError) throw invalid('merchant.fee_overrides', error.message);
    throw error;
  }
}

export function parseSessionParams(value: unknown): ParsedSessionParams {
  const params = requireObject(value, 'params');
  const amount = parseMoneyString(params.amount);
  if (!amount.ok) throw invalid('amount', amount.message);
  if (params.currency !== 'USD') throw invalid('currency', 'must be USD');
  return {
    amountCents: amount.cents,
    currency: params.currency,
    externalRef: optionalString(params.external_ref, 'external_ref', 120),
    description: optionalString(params.description, 'description', 255),
    successUrl: optionalHttpsUrl(params.success_url, 'success_url'),
    cancelUrl: optionalHttpsUrl(params.cancel_url, 'cancel_url'),
    methods: optionalMethods(params.methods),
    customer: optionalCustomer(params.customer),
    metadata: optionalMetadata(params.metadata),
    expiresInSeconds: optionalInteger(params.expires_in, 'expires_in'),
  };
}

function optionalString(value: unknown, param: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) throw invalid(param, `must be a string of at most ${max} characters`);
  return value;
}

function optionalHttpsUrl(value: unknown, param: string): string | null {
  const url = optionalString(value, param, 2048);
  if (url !== null && !url.startsWith('https://')) throw invalid(param, 'must start with https://');
  return url;
}

function optionalInteger(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(param, 'must be a whole number');
  return value;
}

function optionalMethods(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((m): m is string => typeof m === 'string')) {
    throw invalid('methods', 'must be a list of payment methods');
  }
  if (new Set(value).size !== value.length) throw invalid('methods', 'must not repeat a method');
  return value;
}

function optionalCustomer(value: unknown): Customer | null {
  if (value === undefined || value === null) return null;
  const customer = requireObject(value, 'customer');
  const result: Record<string, string> = {};
  for (const [field, fieldValue] of Object.entries(customer)) {
    if (!(field in CUSTOMER_LIMITS)) throw invalid(`customer.${field}`, 'is not a customer field');
    if (fieldValue === undefined) continue;
    const max = CUSTOMER_LIMITS[field as keyof Customer];
    if (typeof fieldValue !== 'string' || fieldValue.length > max) {
      throw invalid(`customer.${field}`, `must be a string of at most ${max} characters`);
    }
    result[field] = fieldValue;
  }
  return result;
}

function optionalMetadata(value: unknown): Metadata | null {
  if (value === undefined || value === null) return null;
  const metadata = requireObject(value, 'metadata');
  if (Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) throw invalid('metadata', 'is too large');
  return metadata;
}

export function optionalEnum<T extends string>(value: unknown, allowed: readonly T[], param: string): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(param, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

export function requireEnum<T extends string>(value: unknown, allowed: readonly T[], param: string): T {
  const parsed = optionalEnum(value, allowed, param);
  if (parsed === undefined) throw invalid(param, `must be one of ${allowed.join(', ')}`);
  return parsed;
}

export function notFound(kind: 'payment intent' | 'invoice', id: string): ApiError {
  return new ApiError('not_found', `No ${kind} ${id}`, 'id');
}
