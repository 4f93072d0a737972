import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter, rateLimitedError, rateLimitHeaders } from '../rate-limit/rate-limiter.service';
import { ApiKeyAuthenticator, assertEnvironmentAllowed } from './api-key.authenticator';

/** Routes under this prefix are the merchant API: every one needs an API key and is rate limited. */
export const API_PREFIX = '/api/v1/';


/**
 * The merchant API's front door, registered globally (and usable as `@UseGuards(ApiAccessGuard)`):
 * API key (401), per-key rate limit (429, RateLimit-* headers from here on, errors included), then live
 * mode needs a verified account (403). Sets `request.auth`. Other routes (health, checkout, ...) pass.
 */
@Injectable()
export class ApiAccessGuard implements CanActivate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isApiRoute(request) || request.auth) return true;
    const reply = context.switchToHttp().getResponse<FastifyReply>();

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
    return true;
  }
}

function isApiRoute(request: FastifyRequest): boolean {
  const path = request.routeOptions?.url ?? request.url;
  return path.startsWith(API_PREFIX);
}
