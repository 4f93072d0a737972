import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { CommandOptions } from '@payments/platform';
import type { FastifyRequest } from 'fastify';

const MAX_KEY_LENGTH = 190;

/**
 * Route parameter: who sends the command. Its command id is the request's Idempotency-Key where the merchant
 * sent one (so a merchant's retry after a 503 is the same command to the owner), else a fresh one per request.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): CommandOptions => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const header = request.headers['idempotency-key'];
  const key = request.idempotencyKey ?? (typeof header === 'string' && header.length > 0 && header.length <= MAX_KEY_LENGTH ? header : undefined);
  return { correlationId: String(request.id), ...(key === undefined ? {} : { commandId: key }) };
});
