import type { FastifyRequest } from 'fastify';
import type { IdempotencyScope, StoredResponse } from './idempotency.store';

/** What the interceptor decided for one request, read back when its response is sent. */
export type IdempotencyExchange =
  | { kind: 'execute'; scope: IdempotencyScope; owner: string; sealed: boolean }
  | { kind: 'replay'; response: StoredResponse };

/** Requests in progress under an idempotency key (weakly held: a finished request leaves nothing behind). */
export class IdempotencyExchanges {
  private readonly byRequest = new WeakMap<FastifyRequest, IdempotencyExchange>();

  set(request: FastifyRequest, exchange: IdempotencyExchange): void {
    this.byRequest.set(request, exchange);
  }

  take(request: FastifyRequest): IdempotencyExchange | undefined {
    const exchange = this.byRequest.get(request);
    this.byRequest.delete(request);
    return exchange;
  }
}
