import type { IncomingMessage } from 'node:http';
import { newRequestId } from '@payments/ids';

const SAFE_ID = /^[A-Za-z0-9_.:-]{8,100}$/;

/** Honours a caller's Request-Id when it is safe to echo; otherwise issues a fresh one. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : newRequestId();
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
