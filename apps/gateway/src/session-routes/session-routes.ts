import { applyDecorators, CanActivate, Controller, createParamDecorator, ExecutionContext, HttpCode, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { IDEMPOTENCY_KEY_SCHEMA, type MerchantSettings } from '@payments/contracts';
import { ApiError } from '@payments/platform';
import { authOf, type AuthContext } from '../auth/auth-context';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { ApiErrors } from './api-error.responses';
import { merchantSettings } from './merchant-settings';
import { requireObjectId } from './object-id';

/** A session resource's controller: its path under /api/v1 and its tag in the API document, with bearer auth. */
export function SessionResource(path: string, tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(), Controller(`api/v1/${path}`));
}

/** Who creates: the caller's key and the request's Idempotency-Key (checked by the route's interceptor). */
export interface Creator {
  auth: AuthContext;
  idempotencyKey: string;
}

/** Route parameter of a create: the Creator. */
export const CreatedBy = createParamDecorator((_data: unknown, context: ExecutionContext): Creator => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (request.idempotencyKey === undefined) throw new ApiError('internal_error', 'An internal error occurred.');
  return { auth: authOf(request), idempotencyKey: request.idempotencyKey };
});

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
  { auth, idempotencyKey }: Creator,
  params: P,
): { merchant_id: string; environment: AuthContext['environment']; idempotency_key: string; merchant: MerchantSettings; params: P } {
  return { ...scopeOf(auth), idempotency_key: idempotencyKey, merchant: merchantSettings(auth), params: { ...params } };
}

/** A command on one object: its scope and id (an id that cannot be of this kind is 404 here). */
export function objectCommand(auth: AuthContext, kind: 'payment_intent' | 'invoice', id: string) {
  return { ...scopeOf(auth), id: requireObjectId(kind, id) };
}

/**
 * Simulations are for test keys; live sessions are paid at checkout. A guard, so a live key is refused before the
 * route's pipes read the body: a live simulate is 403 whatever its body.
 */
class TestKeysOnlyGuard implements CanActivate {
  constructor(private readonly livePaidHow: string) {}

  canActivate(context: ExecutionContext): boolean {
    if (authOf(context.switchToHttp().getRequest<FastifyRequest>()).environment === 'live') {
      throw new ApiError('live_mode_not_allowed', `Simulate works with test keys only; ${this.livePaidHow} at checkout.`);
    }
    return true;
  }
}

/** A simulate route: test keys only, checked before the body (`livePaidHow` tells a live caller what to do instead). */
export function TestKeysOnly(livePaidHow: string): MethodDecorator {
  return UseGuards(new TestKeysOnlyGuard(livePaidHow));
}

/** A simulate command (its route is TestKeysOnly): the object (404 for an id of another kind), then the body. */
export function simulateCommand<B extends object>(auth: AuthContext, kind: 'payment_intent' | 'invoice', id: string, body: B) {
  return { ...objectCommand(auth, kind, id), ...body };
}
