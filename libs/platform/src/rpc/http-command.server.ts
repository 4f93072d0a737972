import { BaseRpcContext, CustomTransportStrategy, Server } from '@nestjs/microservices';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { lastValueFrom } from 'rxjs';
import { commandHandleDuration } from '../metrics/metrics';
import { COMMAND_HEADERS, COMMAND_PATH, type RpcReply, type RpcRequest } from './rpc-message';

/** The pattern and command id of the command being handled (what `@Ctx()` gives a handler). */
export class CommandContext extends BaseRpcContext<[string, string]> {
  getPattern(): string {
    return this.args[0];
  }

  getCommandId(): string {
    return this.args[1];
  }
}

export interface HttpCommandServerOptions {
  port: number;
  host?: string;
  /** Deadline of a command that arrives without one. */
  defaultTimeoutMs?: number;
}

const MAX_BODY_BYTES = 256 * 1024;

// The process's command servers, for readiness: an instance that cannot take commands must not look ready.
const servers = new Set<HttpCommandServer>();

/** Null when this process serves no commands; otherwise whether every command server is taking them. */
export function commandServersServing(): boolean | null {
  return servers.size === 0 ? null : [...servers].every((server) => server.isServing());
}
/** Longer than any caller keeps an idle connection, so the caller always closes first (no reuse race). */
const KEEP_ALIVE_MS = 65_000;

/**
 * The owner's side of the command transport: `POST /commands/<pattern>` on the service's internal port, a JSON
 * body, the envelope in headers (COMMAND_HEADERS), a JSON RpcReply back. Plain node:http keeps the hop at a few
 * tens of microseconds of CPU (docs/decisions.md). While the service shuts down it answers 503 `shutting_down`
 * without running the command, so the caller sends it to another instance.
 */
export class HttpCommandServer extends Server implements CustomTransportStrategy {
  private server?: HttpServer;
  private closing = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: HttpCommandServerOptions) {
    super();
    servers.add(this);
  }

  listen(callback: (error?: unknown) => void): void {
    const server = createServer((req, res) => {
      const handled = this.handle(req, res).finally(() => this.inFlight.delete(handled));
      this.inFlight.add(handled);
    });
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1000;
    this.server = server;
    server.once('error', callback);
    server.listen(this.options.port, this.options.host ?? '0.0.0.0', () => {
      server.off('error', callback);
      callback();
    });
  }

  /** Stops taking commands, lets those in flight answer, then closes the connections. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.allSettled([...this.inFlight]);
    server.closeAllConnections();
    await closed;
  }

  /** Whether the port is open and taking commands (readiness). */
  isServing(): boolean {
    return this.server?.listening === true && !this.closing;
  }

  on(): never {
    throw new Error('the command transport has no events');
  }

  unwrap<T>(): T {
    return this.server as T;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith(COMMAND_PATH)) {
      return answer(res, 404, failure('not_found', 'No such command route.'));
    }
    if (this.closing) {
      res.setHeader('connection', 'close');
      return answer(res, 503, failure('service_unavailable', 'shutting_down'));
    }
    const pattern = decodeURIComponent(url.slice(COMMAND_PATH.length));
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return answer(res, 400, failure('invalid_request', `The command body is not JSON within the size limit: ${(error as Error).message}`));
    }
    // By exact pattern: Nest's getHandlerByPattern first tries the pattern as JSON, a thrown exception per call.
    const handler = this.messageHandlers.get(pattern);
    if (!handler) return answer(res, 404, failure('not_found', `No command ${pattern}.`));
    const timeoutMs = Number(req.headers[COMMAND_HEADERS.timeout]);
    const request: RpcRequest = {
      command_id: String(req.headers[COMMAND_HEADERS.id] ?? ''),
      deadline: Date.now() + (Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : (this.options.defaultTimeoutMs ?? 5000)),
      correlation_id: String(req.headers[COMMAND_HEADERS.correlation] ?? ''),
      body,
    };
    // Timed here rather than by a Nest interceptor, whose async-context binding cost more than the timing.
    const stop = commandHandleDuration.startTimer({ command: pattern });
    try {
      const result = await handler(request, new CommandContext([pattern, request.command_id]));
      const reply = await lastValueFrom(this.transformToObservable(result));
      stop({ outcome: (reply as RpcReply | undefined)?.ok === false ? 'error' : 'ok' });
      answer(res, 200, reply);
    } catch (error) {
      stop({ outcome: 'failed' });
      // serveCommand shapes every expected failure; reaching here is a bug in a handler.
      this.logger.error(`command ${pattern} failed: ${(error as Error)?.stack ?? String(error)}`);
      answer(res, 500, failure('internal_error', 'An internal error occurred.'));
    }
  }
}

function failure(code: Extract<RpcReply, { ok: false }>['error']['code'], message: string): RpcReply {
  return { ok: false, error: { code, message } };
}

function answer(res: ServerResponse, status: number, reply: unknown): void {
  const text = JSON.stringify(reply);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('command body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
