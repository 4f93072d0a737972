import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyExchanges } from './idempotency.exchanges';
import { IdempotencyStore } from './idempotency.store';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

// Headers that belong to one exchange, not to the stored response: the replay gets its own.
const PER_REQUEST_HEADERS = new Set([
  'request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'set-cookie',
  'idempotent-replayed',
]);

/** 400 (validation) and 5xx are not kept: the key can be used again once the body is fixed or to retry. */
export function isStorable(status: number): boolean {
  return status !== 400 && status < 500;
}

/**
 * The response side of idempotency, as a Fastify onSend hook: a replay goes out with the stored status,
 * headers and bytes (plus `Idempotent-Replayed: true`); a first response is stored before it goes out, so a
 * retry arriving after it always finds it.
 */
export function registerIdempotencyHook(fastify: FastifyInstance, exchanges: IdempotencyExchanges, store: IdempotencyStore): void {
  const logger = new Logger('Idempotency');
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const exchange = exchanges.take(request);
    if (!exchange) return payload;
    if (exchange.kind === 'replay') {
      const { status, headers, body } = exchange.response;
      void reply.code(status).headers(headers).header(REPLAYED_HEADER, 'true');
      return body;
    }
    const body = bytesOf(payload);
    try {
      if (!isStorable(reply.statusCode) || body === undefined) {
        await store.release(exchange.scope, exchange.owner);
      } else {
        await store.complete(exchange.scope, exchange.owner, { status: reply.statusCode, headers: headersToKeep(reply), body }, exchange.sealed);
      }
    } catch (error) {
      logger.warn({ err: error }, 'idempotency record not written: a retry runs the request again');
    }
    return payload;
  });
}

function bytesOf(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  return undefined; // a stream: not kept
}

function headersToKeep(reply: FastifyReply): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || PER_REQUEST_HEADERS.has(name.toLowerCase())) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}
