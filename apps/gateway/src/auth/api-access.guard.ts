import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency.interceptor';
import { isIdempotentRoute } from '../idempotency/idempotent.decorator';
import { admitWith, RateLimiter, rateLimitedError, rateLimitHeaders } from '../rate-limit/rate-limiter.service';
import { ApiKeyAuthenticator, assertEnvironmentAllowed } from './api-key.authenticator';

/** Routes under this prefix are the merchant API: every one needs an API key and is rate limited. */
export const API_PREFIX = '/api/v1/';

/**
 * The merchant API's front door: API key (401), per-key rate limit (429, RateLimit-* headers from here on, errors
 * included), then live mode needs a verified account (403). Sets `request.auth`. Other routes (health, checkout,
 * ...) pass. It runs as a Fastify onRequest hook, before the body is read, so every answer to a known key carries
 * the RateLimit-* headers (DESIGN §5), a 400 for a body that is not JSON included; as a global guard (and
 * `@UseGuards(ApiAccessGuard)`) it covers whatever the hook did not. A request that will claim an idempotency key
 * takes its tokens in the claim's round trip instead (RateLimiter.plan), or when its answer is sent if it never
 * got that far.
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
    // A request answered before its claim took the tokens planned for it (a body that is not JSON, a 403) still
    // counts against its key and carries the headers: refused, its answer becomes the 429.
    fastify.addHook('onSend', async (request, reply, payload) => {
      const planned = request.plannedTokens;
      if (!planned) return payload;
      request.plannedTokens = undefined;
      const result = await this.rateLimiter.consume(planned.subject);
      if (!result) return payload;
      void reply.headers(rateLimitHeaders(result));
      if (result.allowed) return payload;
      const error = rateLimitedError(result);
      void reply.code(error.status).headers(error.headers).header('content-type', 'application/json; charset=utf-8');
      return JSON.stringify(error.bodyFor(String(request.id)));
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
    const subject = { keyId: holder.context.keyId, environment: holder.context.environment, limits: holder.context.merchant.rateLimits };
    if (claimsKey(request)) {
      // Its idempotency claim goes to Redis anyway: the tokens are taken in that round trip, unless held here.
      const plan = await this.rateLimiter.plan(subject);
      if ('take' in plan) request.plannedTokens = plan.take;
      else if (plan.result) admitWith(plan.result, reply);
    } else {
      const limit = await this.rateLimiter.consume(subject);
      if (limit) admitWith(limit, reply);
    }
    assertEnvironmentAllowed(holder.context);
    request.auth = holder.context;
  }
}

/** A POST to an @Idempotent() route with a usable Idempotency-Key: its interceptor will claim the key in Redis. */
function claimsKey(request: FastifyRequest): boolean {
  if (request.method !== 'POST' || !isIdempotentRoute(request)) return false;
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  const key = Array.isArray(header) ? header[0] : header;
  return key !== undefined && key.trim() !== '' && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH;
}

function isApiRoute(request: FastifyRequest): boolean {
  const path = request.routeOptions?.url ?? request.url;
  return path.startsWith(API_PREFIX);
}
