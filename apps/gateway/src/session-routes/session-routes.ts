import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { IDEMPOTENCY_KEY_SCHEMA, type MerchantSettings } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import type { AuthContext } from '../auth/auth-context';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { ApiErrors } from './api-error.responses';
import { merchantSettings } from './merchant-settings';
import { requireObjectId } from './object-id';

/** One route of the session APIs (payment intents, invoices) as the API document shows it. */
export interface SessionOperation {
  operationId: string;
  summary: string;
  status: 200 | 201;
  response: SchemaObject;
  errors: number[];
  /** The path's id, for routes on one object. */
  idParam?: { name: 'id'; schema: SchemaObject };
  /** Creates: a required Idempotency-Key, answers replayed. */
  idempotent?: boolean;
}

/** The decorators every session route carries, in one place. */
export function SessionRoute(operation: SessionOperation): MethodDecorator {
  return applyDecorators(
    HttpCode(operation.status),
    ...(operation.idempotent ? [Idempotent()] : []),
    ApiOperation({ operationId: operation.operationId, summary: operation.summary }),
    ...(operation.idempotent ? [ApiHeader({ name: 'Idempotency-Key', required: true, schema: IDEMPOTENCY_KEY_SCHEMA })] : []),
    ...(operation.idParam ? [ApiParam(operation.idParam)] : []),
    ApiResponse({ status: operation.status, schema: operation.response }),
    ApiErrors(...operation.errors),
  );
}

/** Whose session a command is about. */
export function scopeOf(auth: AuthContext): { merchant_id: string; environment: AuthContext['environment'] } {
  return { merchant_id: auth.merchantId, environment: auth.environment };
}

/** A create command: the scope, the key, what sessions must know of the merchant, and the params. */
export function createCommand<P extends object>(
  auth: AuthContext,
  idempotencyKey: string,
  params: P,
): { merchant_id: string; environment: AuthContext['environment']; idempotency_key: string; merchant: MerchantSettings; params: P } {
  return { ...scopeOf(auth), idempotency_key: idempotencyKey, merchant: merchantSettings(auth), params: { ...params } };
}

/** A command on one object: its scope and id (an id that cannot be of this kind is 404 here). */
export function objectCommand(auth: AuthContext, kind: 'payment_intent' | 'invoice', id: string) {
  return { ...scopeOf(auth), id: requireObjectId(kind, id) };
}

/** Simulations are for test keys; live sessions are paid at checkout. */
export function assertTestKey(auth: AuthContext, livePaidHow: string): void {
  if (auth.environment === 'live') throw new ApiError('live_mode_not_allowed', `Simulate works with test keys only; ${livePaidHow} at checkout.`);
}
