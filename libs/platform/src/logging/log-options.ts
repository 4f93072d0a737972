import type { IncomingHttpHeaders } from 'node:http';
import type { LoggerOptions } from 'pino';

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

/** The logger of every service: JSON lines with the service's name, secrets redacted. */
export function logOptions(service: string, level: string): LoggerOptions {
  return { level, base: { service }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
}

export function correlationIdOf(req: { headers: IncomingHttpHeaders; id?: unknown }): string {
  const header = req.headers['correlation-id'];
  if (typeof header === 'string' && /^[A-Za-z0-9_.:-]{1,100}$/.test(header)) return header;
  return String(req.id ?? '');
}

/** What the request log line of a finished request says (the shape pino-http would write). */
export function requestLogLine(request: { id: unknown; method: string; url: string; headers: IncomingHttpHeaders }, statusCode: number, elapsedMs: number) {
  return {
    req: { id: String(request.id), method: request.method, url: request.url },
    res: { statusCode },
    responseTime: Math.round(elapsedMs),
    correlation_id: correlationIdOf(request),
  };
}
