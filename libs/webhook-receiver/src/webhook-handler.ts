import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { MemoryEventIdStore, type EventIdStore } from './event-id-store';
import { verifyWebhook, type VerifiedWebhook, type VerifyFailure, type VerifyOptions } from './verify-webhook';

export interface WebhookHandlerOptions extends VerifyOptions {
  /** Called once per event id with the verified event; throw (or reject) to have the service send it again. */
  onEvent(webhook: VerifiedWebhook, request: IncomingMessage): void | Promise<void>;
  /** Handled event ids (default: in memory, one process). */
  store?: EventIdStore;
  /** Largest body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** Told about every rejected request (logging). */
  onRejected?(reason: VerifyFailure | 'method_not_allowed' | 'body_too_large' | 'handler_failed', detail: string): void;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The raw request body, unparsed (the signature covers these exact bytes); null when over the limit. */
export function readRawBody(req: IncomingMessage, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A Node `request` listener that behaves as the spec's reference receiver: 400 when verification fails,
 * 200 when the event is accepted. Each event id is handled once: a repeat of a handled event is answered 200
 * without calling `onEvent` again; a repeat arriving while the first is still being handled gets 409 (so it
 * is retried later); a failing `onEvent` answers 500 (so the service retries).
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const store = options.store ?? new MemoryEventIdStore();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      options.onRejected?.('method_not_allowed', String(req.method));
      answer(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
      return;
    }
    const raw = await readRawBody(req, maxBodyBytes);
    if (raw === null) {
      options.onRejected?.('body_too_large', `over ${maxBodyBytes} bytes`);
      answer(res, 413, { error: 'body_too_large' });
      return;
    }
    const result = verifyWebhook(raw, req.headers, options);
    if (!result.ok) {
      options.onRejected?.(result.reason, result.message);
      answer(res, 400, { error: result.reason });
      return;
    }
    const { webhook } = result;
    const claim = await store.claim(webhook.id);
    if (claim === 'done') {
      answer(res, 200, { received: true, duplicate: true });
      return;
    }
    if (claim === 'in_progress') {
      answer(res, 409, { error: 'event_in_progress' }, { 'retry-after': '5' });
      return;
    }
    try {
      await options.onEvent(webhook, req);
    } catch (error) {
      await store.release(webhook.id);
      options.onRejected?.('handler_failed', error instanceof Error ? error.message : String(error));
      answer(res, 500, { error: 'handler_failed' });
      return;
    }
    await store.complete(webhook.id);
    answer(res, 200, { received: true });
  };

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.onRejected?.('handler_failed', error instanceof Error ? error.message : String(error));
      if (!res.headersSent) answer(res, 500, { error: 'internal_error' });
      else res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

/** An HTTP server that receives webhooks on every path (call `listen` on it). */
export function createWebhookServer(options: WebhookHandlerOptions): Server {
  return createServer(createWebhookHandler(options));
}
