import { applyDecorators, createParamDecorator, ExecutionContext, UseInterceptors } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiError } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import { IdempotencyInterceptor } from './idempotency.interceptor';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by @Idempotent(): tells Fastify hooks (they run before Nest picks the handler) the route claims a key. */
    idempotent?: boolean;
  }
}

/**
 * Marks a creating POST route: Idempotency-Key required, replays and conflicts handled before the handler.
 * The controller's module imports IdempotencyModule.
 */
export function Idempotent(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseInterceptors(IdempotencyInterceptor), RouteConfig({ idempotent: true }));
}

/** Whether the request's route is @Idempotent(): its claim will go to Redis before the handler runs. */
export function isIdempotentRoute(request: FastifyRequest): boolean {
  return request.routeOptions?.config?.idempotent === true;
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
