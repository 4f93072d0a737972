import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorBody } from './api-error';

/**
 * Fastify's refusals before any route or hook runs (Fastify's `frameworkErrors`): a path that is not valid
 * percent-encoding, a path id over the router's limit. Answered in the Error shape with a Request-Id like every
 * other answer, instead of Fastify's own body (`{"error": "Bad Request", ...}`).
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ApiError('not_found', 'No object has an id that long.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new ApiError('invalid_request', 'The URL path is not valid percent-encoding.')
        : new ApiError('invalid_request', 'The request is invalid.');
  const body: ErrorBody = { error: { ...answer.toJSON(), request_id: String(request.id) } };
  void reply.header('Request-Id', String(request.id)).status(answer.status).send(body);
}
