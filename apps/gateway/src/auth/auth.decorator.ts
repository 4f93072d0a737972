import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { authOf, AuthContext } from './auth-context';

/** Route parameter: the AuthContext of the calling API key, e.g. `create(@Auth() auth: AuthContext)`. */
export const Auth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthContext => {
  return authOf(context.switchToHttp().getRequest<FastifyRequest>());
});
