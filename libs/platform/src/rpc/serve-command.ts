import { Logger } from '@nestjs/common';
import { isDatabaseTimeout } from '@payments/database';
import { ApiError } from '../errors/api-error';
import type { RpcReply, RpcRequest } from './rpc-message';

const logger = new Logger('Command');

/** Maps a service's own errors (e.g. domain errors) to API errors; return undefined when it is not one. */
export type ErrorMapper = (error: unknown) => ApiError | undefined;

/**
 * Runs a command handler and shapes its answer for the gateway. A command whose caller has already given
 * up (deadline passed, e.g. it queued behind a busy database) is not executed: the caller
 * answered 503, and its retry with the same idempotency key is what should act.
 */
export async function serveCommand<TBody, TData>(
  request: RpcRequest<TBody>,
  handler: (body: TBody, request: RpcRequest<TBody>) => Promise<TData>,
  mapError: ErrorMapper = () => undefined,
): Promise<RpcReply<TData>> {
  if (typeof request?.deadline === 'number' && Date.now() > request.deadline) {
    return { ok: false, error: { code: 'service_unavailable', message: 'The request expired before it was handled.' } };
  }
  try {
    return { ok: true, data: await handler(request.body, request) };
  } catch (error) {
    const apiError = error instanceof ApiError ? error : mapError(error);
    if (apiError) return { ok: false, error: apiError.toJSON() };
    if (isDatabaseTimeout(error)) {
      // A lock held too long or an overloaded database: nothing was written, the caller's retry is safe.
      logger.warn({ err: error, correlation_id: request?.correlation_id }, 'command gave up waiting for the database');
      return { ok: false, error: { code: 'service_unavailable', message: 'The service could not reach the data in time. Retry shortly.' } };
    }
    logger.error({ err: error, correlation_id: request?.correlation_id }, 'command failed');
    return { ok: false, error: { code: 'internal_error', message: 'An internal error occurred.' } };
  }
}
