import { IDEMPOTENCY_KEY_SCHEMA } from '@payments/contracts';
import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Observable, of } from 'rxjs';
import { authOf } from '../auth/auth-context';
import { admitWith, RateLimiter } from '../rate-limit/rate-limiter.service';
import { IdempotencyExchanges } from './idempotency.exchanges';
import { IdempotencyStore, type TokensWithClaim } from './idempotency.store';
import { requestFingerprint } from './request-fingerprint';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = IDEMPOTENCY_KEY_SCHEMA.maxLength;

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's Idempotency-Key, on routes marked @Idempotent(). */
    idempotencyKey?: string;
  }
}

/**
 * Idempotency-Key on creating POST routes (DESIGN §5 Idempotency). Runs after the API access guard (it
 * needs the merchant and environment) and before validation, so a 400 is never kept. The response itself is
 * captured, stored or replayed when it is sent (idempotency.hook.ts), which sees the exact bytes, status
 * and headers, errors included.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly exchanges: IdempotencyExchanges,
    private readonly rateLimiter: RateLimiter,
  ) {}

  /** `sealed`: the route's answers show a secret, so its replay record is kept encrypted. */
  async intercept(context: ExecutionContext, next: CallHandler, sealed = false): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = authOf(request);
    const key = idempotencyKeyOf(request);
    request.idempotencyKey = key;
    const scope = { merchantId: auth.merchantId, environment: auth.environment, key };
    // No body is the same request as `{}` (the routes whose body is optional read it so): a client that sends one
    // on its retry and not on its first try gets the first answer, not a conflict.
    const fingerprint = requestFingerprint(request.method, request.url, request.body ?? {});

    let start;
    try {
      start = await this.store.start(scope, fingerprint, this.plannedTokens(context));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // Without Redis the request still runs: the service's own one-object-per-key rule keeps it safe,
      // only the byte-for-byte replay is lost while Redis is away.
      this.logger.warn({ err: error }, 'idempotency store unavailable: request runs without a replay record');
      return next.handle();
    }
    if (start.kind === 'replay') {
      this.exchanges.set(request, start);
      return of(start.response.body);
    }
    this.exchanges.set(request, { kind: 'execute', scope, owner: start.owner, sealed });
    return next.handle();
  }

  /** The rate-limit tokens the API access hook left for the claim's round trip to take (see ApiAccessGuard). */
  private plannedTokens(context: ExecutionContext): TokensWithClaim | undefined {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const planned = request.plannedTokens;
    if (!planned) return undefined;
    return {
      bucketKey: planned.bucketKey,
      limit: planned.limit,
      admit: (grant) => {
        request.plannedTokens = undefined;
        admitWith(this.rateLimiter.granted(planned, grant), context.switchToHttp().getResponse<FastifyReply>());
      },
    };
  }
}

function idempotencyKeyOf(request: FastifyRequest): string {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || key.trim() === '') {
    throw new ApiError(
      'idempotency_key_required',
      'An Idempotency-Key header is required: a unique value per operation (e.g. a UUID), reused when retrying it.',
    );
  }
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ApiError(
      'invalid_request',
      `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
      'Idempotency-Key',
    );
  }
  return key;
}
