import { newRequestId } from '@payments/ids';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error';

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
  void reply.header('Request-Id', String(request.id)).status(answer.status).send(answer.bodyFor(String(request.id)));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (Fastify's `clientErrorHandler`): headers over
 * Node's size limit, a request line or chunked body that does not parse, both Content-Length and
 * Transfer-Encoding. Answered in the Error shape with a Request-Id, then the connection is closed (its bytes can
 * no longer be trusted to frame another request).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time.']
        : [400, 'The request is not valid HTTP.'];
  const requestId = newRequestId();
  const body = JSON.stringify(new ApiError('invalid_request', message).bodyFor(requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
