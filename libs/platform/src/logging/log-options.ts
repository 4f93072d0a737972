import type { IncomingHttpHeaders } from 'node:http';
import { traceLogFields, tracingEnabled } from '@payments/tracing';
import pino, { type LoggerOptions } from 'pino';

/** Paths never written to a log line: credentials, secrets and personal data that a log does not need. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.password',
  '*.api_key',
  '*.token',
  '*.test_key',
  '*.live_key',
  'err.config',
];

// What a database error carries besides its message: the SQL text, its bound parameters (customers' e-mail,
// phone, metadata, idempotency keys) and Postgres' detail ("Key (…)=(…) already exists"). None of it is logged.
const DATABASE_ERROR_FIELDS = ['query', 'parameters', 'driverError', 'detail', 'where', 'internalQuery', 'hint'];

/**
 * pino's error serializer, without a stack trace (DESIGN §5: no stack trace reaches a log line; the type, message
 * and code say what failed) and without what a database error would leak (see DATABASE_ERROR_FIELDS), causes
 * included. A plain object logged as an error (e.g. `{message, stack}`) loses its stack too.
 */
export function serializeError(error: unknown): unknown {
  if (error instanceof Error) {
    const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
    delete serialized.stack;
    for (const field of DATABASE_ERROR_FIELDS) delete serialized[field];
    if (serialized.cause !== undefined) serialized.cause = serializeError((error as { cause?: unknown }).cause);
    return serialized;
  }
  if (typeof error === 'object' && error !== null && 'stack' in error) {
    const { stack: _stack, ...rest } = error as Record<string, unknown>;
    return rest;
  }
  return error;
}

/**
 * The logger of every service: JSON lines with the service's name, secrets and SQL parameters redacted. While
 * tracing is on, each line written within a span carries its trace_id and span_id (off, no mixin runs at all).
 */
export function logOptions(service: string, level: string): LoggerOptions {
  const options: LoggerOptions = { level, base: { service }, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } };
  if (tracingEnabled()) options.mixin = traceLogFields;
  return options;
}

export function correlationIdOf(req: { headers: IncomingHttpHeaders; id?: unknown }): string {
  const header = req.headers['correlation-id'];
  if (typeof header === 'string' && /^[A-Za-z0-9_.:-]{1,100}$/.test(header)) return header;
  return String(req.id ?? '');
}

/**
 * Query parameters whose values are credentials or personal data: the one-use tokens of mailed links (password
 * reset, invitation, confirmation, unlock), codes, keys, e-mail addresses. A link's token is a password for as long
 * as it is valid (an invitation's page does not spend it, so mail scanners may open it), so a log line never holds it.
 */
const SECRET_QUERY_PARAM = /token|code|secret|password|key|signature|email|otp/i;

/** The request's path and query, the values of secret-named parameters replaced (names kept: the line still says what was asked). */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed name is judged as written.
      }
      return equals >= 0 && SECRET_QUERY_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

/** What the request log line of a finished request says (the shape pino-http would write). */
export function requestLogLine(request: { id: unknown; method: string; url: string; headers: IncomingHttpHeaders }, statusCode: number, elapsedMs: number) {
  return {
    req: { id: String(request.id), method: request.method, url: loggedUrl(request.url) },
    res: { statusCode },
    responseTime: Math.round(elapsedMs),
    correlation_id: correlationIdOf(request),
  };
}
