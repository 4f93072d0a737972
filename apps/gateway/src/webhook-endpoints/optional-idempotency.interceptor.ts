import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';

/**
 * Idempotency-Key where it is accepted but not required (DESIGN §5 requires it only on intents, invoices and
 * refunds): with the header the request gets replay and conflict handling, without it it simply runs. These
 * are the webhook endpoint routes, whose create and roll answers show the signing secret: their replay records
 * are kept encrypted.
 */
@Injectable()
export class OptionalIdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyInterceptor) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers[IDEMPOTENCY_KEY_HEADER];
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || given.trim() === '') return next.handle();
    return this.idempotency.intercept(context, next, true);
  }
}
