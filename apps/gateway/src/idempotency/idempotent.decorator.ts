import { applyDecorators, createParamDecorator, ExecutionContext, UseInterceptors } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Marks a creating POST route: Idempotency-Key required, replays and conflicts handled before the handler.
 * The controller's module imports IdempotencyModule.
 */
export function Idempotent(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseInterceptors(IdempotencyInterceptor));
}

/**
 * Route parameter: the request's Idempotency-Key, to pass to the service, which creates at most one object per
 * (merchant, environment, key) in its own transaction.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<FastifyRequest>().idempotencyKey;
  if (key === undefined) throw new ApiError('internal_error', 'An internal error occurred.');
  return key;
});
