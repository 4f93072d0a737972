import type { IncomingMessage } from 'node:http';
import type { Options } from 'pino-http';
import { newRequestId } from '@payments/ids';

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

/** pino-http settings shared by every service: JSON lines, request and correlation ids, secrets redacted. */
export function logOptions(service: string, level: string): Options {
  return {
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? newRequestId(),
    customProps: (req: IncomingMessage) => ({ correlation_id: correlationIdOf(req) }),
    autoLogging: { ignore: (req: IncomingMessage) => /^\/(health|metrics)/.test(req.url ?? '') },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

export function correlationIdOf(req: IncomingMessage): string {
  const header = req.headers['correlation-id'];
  if (typeof header === 'string' && /^[A-Za-z0-9_.:-]{1,100}$/.test(header)) return header;
  return String((req as IncomingMessage & { id?: string }).id ?? '');
}
