import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { IDEMPOTENCY_KEY_SCHEMA } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import type { FastifyRequest } from 'fastify';


/**
 * Route parameter: who sends the command. Its command id is the request's Idempotency-Key where the merchant
 * sent one (so a merchant's retry after a 503 is the same command to the owner), else a fresh one per request.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): CommandOptions => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const header = request.headers['idempotency-key'];
  const key = request.idempotencyKey ?? (typeof header === 'string' && header.length > 0 && header.length <= IDEMPOTENCY_KEY_SCHEMA.maxLength ? header : undefined);
  return { correlationId: String(request.id), ...(key === undefined ? {} : { commandId: key }) };
});
