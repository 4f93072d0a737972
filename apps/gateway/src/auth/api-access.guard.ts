import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter, rateLimitedError, rateLimitHeaders } from '../rate-limit/rate-limiter.service';
import { ApiKeyAuthenticator, assertEnvironmentAllowed } from './api-key.authenticator';

/** Routes under this prefix are the merchant API: every one needs an API key and is rate limited. */
export const API_PREFIX = '/api/v1/';

/**
 * The merchant API's front door: API key (401), per-key rate limit (429, RateLimit-* headers from here on, errors
 * included), then live mode needs a verified account (403). Sets `request.auth`. Other routes (health, checkout,
 * ...) pass. It runs as a Fastify onRequest hook, before the body is read, so every answer to a known key carries
 * the RateLimit-* headers (DESIGN §5), a 400 for a body that is not JSON included; as a global guard (and
 * `@UseGuards(ApiAccessGuard)`) it covers whatever the hook did not.
 */
@Injectable()
export class ApiAccessGuard implements CanActivate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly rateLimiter: RateLimiter,
  ) {}

  /** Admits API requests at the start of each request. */
  register(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (request, reply) => {
      if (isApiRoute(request) && !request.auth) await this.admit(request, reply);
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isApiRoute(request) || request.auth) return true;
    await this.admit(request, context.switchToHttp().getResponse<FastifyReply>());
    return true;
  }

  private async admit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const holder = await this.authenticator.authenticate(request.headers.authorization, request.ip);
    const limit = await this.rateLimiter.consume({
      keyId: holder.context.keyId,
      environment: holder.context.environment,
      limits: holder.context.merchant.rateLimits,
    });
    if (limit) {
      void reply.headers(rateLimitHeaders(limit));
      if (!limit.allowed) throw rateLimitedError(limit);
    }
    assertEnvironmentAllowed(holder.context);
    request.auth = holder.context;
  }
}

function isApiRoute(request: FastifyRequest): boolean {
  const path = request.routeOptions?.url ?? request.url;
  return path.startsWith(API_PREFIX);
}
