import { BaseRpcContext, CustomTransportStrategy, Server } from '@nestjs/microservices';
import { context as otelContext, SpanKind, trace as otelTrace, type Span } from '@opentelemetry/api';
import { markFailed, tracedContextOf, tracer, tracingEnabled } from '@payments/tracing';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { lastValueFrom } from 'rxjs';
import { commandHandleDuration } from '../metrics/metrics';
import {
  CommandSecrets,
  HANDSHAKE_EXCHANGE_ID,
  isNonce,
  MAX_HANDSHAKE_BYTES,
  newNonce,
  readHandshake,
  type Challenge,
  type CommandSecret,
  type Refusal,
} from './command-auth';
import { encodeFrame, FrameDecoder, type AnswerFrame, type CommandFrame } from './command-frames';
import type { RpcReply, RpcRequest } from './rpc-message';

/** The pattern and command id of the command being handled (what `@Ctx()` gives a handler). */
export class CommandContext extends BaseRpcContext<[string, string]> {
  getPattern(): string {
    return this.args[0];
  }

  getCommandId(): string {
    return this.args[1];
  }
}

export interface CommandServerOptions {
  port: number;
  host?: string;
  /** COMMAND_SECRET's entries: a caller must prove one of them before its commands run (command-auth.ts). */
  secrets: readonly string[];
  /** Deadline of a command that arrives without one. */
  defaultTimeoutMs?: number;
}

/** A command's body is bounded like a public request's; a larger frame is refused (400) and skipped. */
const MAX_COMMAND_BYTES = 256 * 1024;
/**
 * A declared length beyond this is not a command at all (an HTTP request or a port scan reads as a length of
 * about a gigabyte): the connection is closed instead of skipping it.
 */
const NOT_FRAMES_BYTES = 64 * 1024 * 1024;
/** A connection that has not proved the secret by then is closed: unauthenticated sockets do not pile up. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

// The process's command servers, for readiness: an instance that cannot take commands must not look ready.
const servers = new Set<CommandServer>();

/** Null when this process serves no commands; otherwise whether every command server is taking them. */
export function commandServersServing(): boolean | null {
  return servers.size === 0 ? null : [...servers].every((server) => server.isServing());
}

/**
 * The owner's side of the command transport: length-prefixed JSON frames (command-frames.ts) on the service's
 * internal port, many commands in flight per connection, each answered by its exchange id as soon as it is done.
 * A connection costs one parse per command and no HTTP machinery (docs/decisions.md). While the service shuts
 * down it answers 503 without running the command, so the caller sends it to another instance. A connection runs
 * commands only once its caller has proved the shared secret (command-auth.ts); any other peer is refused, logged
 * by address, and closed.
 */
export class CommandServer extends Server implements CustomTransportStrategy {
  private server?: NetServer;
  private closing = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sockets = new Set<Socket>();
  private readonly secrets: CommandSecrets;

  constructor(private readonly options: CommandServerOptions) {
    super();
    this.secrets = new CommandSecrets(options.secrets);
    servers.add(this);
  }

  listen(callback: (error?: unknown) => void): void {
    const server = createServer((socket) => this.accept(socket));
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
    await Promise.allSettled([...this.inFlight]);
    // Answers written, then the connections end; what a caller sends meanwhile is answered 503 or lost with the
    // connection, and a lost command is sent again only when its owner deduplicates it.
    for (const socket of this.sockets) socket.end(() => socket.destroy());
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

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    this.sockets.add(socket);
    // A caller that went away: its commands' answers have nowhere to go, and its retries carry the same ids.
    socket.on('error', () => undefined);
    const handshake = new OwnerHandshake(this.secrets, socket, (reason) => this.refuse(socket, reason));
    socket.on('close', () => {
      this.sockets.delete(socket);
      handshake.cancel();
    });
    const decoder = new FrameDecoder(MAX_COMMAND_BYTES, (id, payload, length) => {
      if (length > NOT_FRAMES_BYTES) return void socket.destroy();
      if (!handshake.done) return handshake.take(id, payload);
      const handled = this.handle(socket, id, payload).finally(() => this.inFlight.delete(handled));
      this.inFlight.add(handled);
    });
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
  }

  /** Tells the peer why (never anything of the secret), logs it by address, and closes the connection. */
  private refuse(socket: Socket, reason: string): void {
    this.logger.warn({ peer: `${socket.remoteAddress}:${socket.remotePort}`, reason }, `command connection refused: ${reason}`);
    if (socket.writable) socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify({ refused: reason } satisfies Refusal)));
    socket.end(() => socket.destroy());
  }

  private async handle(socket: Socket, id: number, payload: Buffer | undefined): Promise<void> {
    if (this.closing) return answer(socket, id, 503, failure('service_unavailable', 'shutting_down'));
    if (!payload) return answer(socket, id, 400, failure('invalid_request', `The command is larger than ${MAX_COMMAND_BYTES} bytes.`));
    let frame: CommandFrame;
    try {
      frame = JSON.parse(payload.toString('utf8')) as CommandFrame;
      if (typeof frame?.pattern !== 'string') throw new Error('no pattern');
    } catch (error) {
      return answer(socket, id, 400, failure('invalid_request', `The command is not readable: ${(error as Error).message}`));
    }
    const pattern = frame.pattern;
    // By exact pattern: Nest's getHandlerByPattern first tries the pattern as JSON, a thrown exception per call.
    const handler = this.messageHandlers.get(pattern);
    if (!handler) return answer(socket, id, 404, failure('not_found', `No command ${pattern}.`));
    const timeoutMs = frame.timeout_ms;
    const request: RpcRequest = {
      command_id: String(frame.command_id ?? ''),
      deadline: Date.now() + (typeof timeoutMs === 'number' && timeoutMs > 0 ? timeoutMs : (this.options.defaultTimeoutMs ?? 5000)),
      correlation_id: String(frame.correlation_id ?? ''),
      body: frame.body,
    };
    // Timed here rather than by a Nest interceptor, whose async-context binding cost more than the timing.
    const stop = commandHandleDuration.startTimer({ command: pattern });
    // The caller's trace continues here; a frame without trace context (work not sampled) makes no span.
    const parent = tracingEnabled() ? tracedContextOf(frame) : undefined;
    const span: Span | undefined = parent && tracer().startSpan(pattern, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'payments-commands', 'rpc.method': pattern } }, parent);
    const run = () => handler(request, new CommandContext([pattern, request.command_id]));
    try {
      const result = await (parent && span ? otelContext.with(otelTrace.setSpan(parent, span), run) : run());
      const reply = await lastValueFrom(this.transformToObservable(result));
      const failed = (reply as RpcReply | undefined)?.ok === false;
      stop({ outcome: failed ? 'error' : 'ok' });
      if (span && failed) span.setAttribute('payments.error_code', (reply as Extract<RpcReply, { ok: false }>).error.code);
      if (span) {
        // Within the span: the line carries its trace id (debug, so a service at info writes nothing per command).
        otelContext.with(otelTrace.setSpan(parent!, span), () => this.logger.debug?.({ command: pattern, command_id: request.command_id, ok: !failed }, 'command handled'));
        span.end();
      }
      answer(socket, id, 200, reply);
    } catch (error) {
      if (span) {
        markFailed(span, error);
        span.end();
      }
      stop({ outcome: 'failed' });
      // serveCommand shapes every expected failure; reaching here is a bug in a handler.
      this.logger.error({ err: error, command: pattern }, `command ${pattern} failed`);
      answer(socket, id, 500, failure('internal_error', 'An internal error occurred.'));
    }
  }
}

function failure(code: Extract<RpcReply, { ok: false }>['error']['code'], message: string): RpcReply {
  return { ok: false, error: { code, message } };
}

function answer(socket: Socket, id: number, status: AnswerFrame['status'], reply: unknown): void {
  // The caller is gone: nothing to answer (a retry with the same command id gets the result again).
  if (!socket.writable) return;
  socket.write(encodeFrame(id, `{"status":${status},"reply":${JSON.stringify(reply) ?? 'null'}}`));
}

/** The owner's side of one connection's handshake (command-auth.ts): hello, then the caller's proof. */
class OwnerHandshake {
  done = false;
  private refused = false;
  private secret?: CommandSecret;
  private callerNonce = '';
  private ownerNonce = '';
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly secrets: CommandSecrets,
    private readonly socket: Socket,
    private readonly onRefused: (reason: string) => void,
  ) {
    this.timer = setTimeout(() => this.refuse(`no handshake within ${HANDSHAKE_TIMEOUT_MS} ms`), HANDSHAKE_TIMEOUT_MS);
  }

  take(id: number, payload: Buffer | undefined): void {
    if (this.refused) return;
    if (id !== HANDSHAKE_EXCHANGE_ID) return this.refuse('a command before the handshake (is the caller a version without it?)');
    const frame = readHandshake(payload);
    if (!frame) return this.refuse(`the handshake is not readable (at most ${MAX_HANDSHAKE_BYTES} bytes of JSON)`);
    if (!this.secret) {
      if (frame.hello !== 1 || !isNonce(frame.nonce)) return this.refuse('the first frame is not a hello');
      const secret = this.secrets.find(frame.key);
      if (!secret) return this.refuse("the caller's COMMAND_SECRET is not one this service accepts");
      this.secret = secret;
      this.callerNonce = frame.nonce;
      this.ownerNonce = newNonce();
      const challenge: Challenge = { nonce: this.ownerNonce, proof: secret.proof('owner', this.callerNonce, this.ownerNonce) };
      this.socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify(challenge)));
      return;
    }
    if (!this.secret.verifies(frame.proof, 'caller', this.callerNonce, this.ownerNonce)) return this.refuse("the caller's proof of COMMAND_SECRET is wrong");
    this.done = true;
    clearTimeout(this.timer);
  }

  cancel(): void {
    clearTimeout(this.timer);
  }

  private refuse(reason: string): void {
    if (this.refused) return;
    this.refused = true;
    clearTimeout(this.timer);
    this.onRefused(reason);
  }
}
