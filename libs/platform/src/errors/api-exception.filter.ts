import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from './api-error';

/** Turns every error of an HTTP route into the spec's Error shape with the request id. Never leaks internals. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = this.toApiError(exception, request);
    if (error.status >= 500) {
      this.logger.error({ err: exception, request_id: request.id, code: error.code }, 'request failed');
    }
    for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
    void reply.status(error.status).send(error.bodyFor(String(request.id)));
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) return fromHttpException(exception, request);
    const fastifyError = exception as { code?: string; statusCode?: number; message?: string };
    if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode < 500) {
      return fromClientStatus(fastifyError.statusCode, fastifyError.code);
    }
    return new ApiError('internal_error', 'An internal error occurred. Retry later; the request id identifies it.');
  }
}

function fromHttpException(exception: HttpException, request: FastifyRequest): ApiError {
  const status = exception.getStatus();
  if (status === 404) return new ApiError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
  if (status >= 500) {
    const code: ErrorCode = status === 503 ? 'service_unavailable' : 'internal_error';
    return new ApiError(code, status === 503 ? 'The service is temporarily unavailable. Retry later.' : 'An internal error occurred.');
  }
  return fromClientStatus(status, undefined, exception.message);
}

function fromClientStatus(status: number, fastifyCode?: string, message?: string): ApiError {
  if (status === 404) return new ApiError('not_found', message ?? 'Not found');
  if (status === 413 || fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError('invalid_request', 'The request body is larger than 64 KiB.');
  }
  if (status === 415 || fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('invalid_request', 'Send the body as application/json.');
  }
  if (fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  if (status === 401) return new ApiError('invalid_api_key', message ?? 'Invalid API key.');
  if (status === 429) return new ApiError('rate_limited', message ?? 'Too many requests.');
  return new ApiError('invalid_request', message && status === 400 ? message : 'The request is invalid.');
}
