import { Logger } from '@nestjs/common';
import { context as otelContext, SpanKind, trace as otelTrace, type Context } from '@opentelemetry/api';
import { injectTraceHeaders, markFailed, recordingIn, tracer, tracingEnabled } from '@payments/tracing';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';
import { commandPattern, serviceOfPattern } from './command-pattern';
import { CommandSecrets, HANDSHAKE_EXCHANGE_ID, isNonce, newNonce, readHandshake, type CallerProof, type CommandSecret, type Hello } from './command-auth';
import { encodeFrame, FrameDecoder, MAX_EXCHANGE_ID, type AnswerFrame, type CommandFrame } from './command-frames';
import type { RpcRequest } from './rpc-message';

/** What ServiceClient hands the transport: the envelope, and whether a retry after an unknown outcome is safe. */
export interface CommandPacket extends RpcRequest {
  /** The owner deduplicates this command by its id, so it may be sent again when its answer was lost. */
  retryable: boolean;
}

export interface CommandClientOptions {
  /**
   * Addresses of each service's instances (`tcp://host:port`; `http://` is read as the same address), e.g.
   * `{ sessions: ['tcp://127.0.0.1:4001', 'tcp://127.0.0.1:4011'] }`.
   */
  upstreams: Record<string, string[]>;
  /** Connections per instance; each carries any number of commands at once. */
  connections?: number;
  /** How long an instance that refused or dropped a connection is passed over. */
  downForMs?: number;
  /**
   * How often a host name is resolved again. A name is resolved to every address it has (a Kubernetes headless
   * Service answers one per ready pod), and each address is an instance of its own.
   */
  resolveEveryMs?: number;
  /** How long a connection may take to open (and finish its handshake) before the instance counts as unreachable. */
  connectTimeoutMs?: number;
  /**
   * How long an instance may leave a command unanswered while answering nothing else, not even a ping sent halfway
   * through, before it counts as hung (a stopped process, a blocked event loop): it is passed over until it answers
   * a ping, and a retryable command goes to another instance with the same command id. At most half the command's
   * remaining deadline.
   */
  answerWindowMs?: number;
  /** COMMAND_SECRET's entries: the first is proved to every owner when a connection opens (command-auth.ts). */
  secrets: readonly string[];
}

/** The owner could not be reached or did not answer: the caller answers 503 and the merchant retries. */
export class CommandUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandUnavailableError';
  }
}

/** Why an exchange failed; `sent` says whether the command may have reached the owner. */
class ExchangeError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExchangeError';
  }
}

interface Exchange {
  resolve: (answer: AnswerFrame) => void;
  reject: (error: ExchangeError) => void;
}

/** Answers are JSON of any size the owner sends (a page of 100 records); this only bounds a corrupt length. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const logger = new Logger('CommandClient');

/**
 * One persistent connection to one instance, carrying any number of commands at once: each frame has an
 * exchange id, and an answer settles the exchange with that id, in whatever order they come. It opens with the
 * handshake (command-auth.ts): commands sent meanwhile wait, and go only to an owner that proved the secret.
 */
class Connection {
  private readonly socket: Socket;
  private readonly exchanges = new Map<number, Exchange>();
  /** Commands waiting for the handshake, written in order once it is done. */
  private readonly waiting: Array<{ id: number; frame: Buffer }> = [];
  private readonly callerNonce = newNonce();
  private readonly connectTimer: NodeJS.Timeout;
  private nextId = 0;
  /** The handshake is done: a command written from now on may reach the owner. */
  private connected = false;
  closed = false;

  constructor(
    host: string,
    port: number,
    connectTimeoutMs: number,
    private readonly secret: CommandSecret,
  ) {
    const socket = connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 10_000 });
    this.socket = socket;
    // Closing it fails its exchanges as not sent (it never opened, or the owner never proved the secret).
    const connectTimer = setTimeout(() => socket.destroy(), connectTimeoutMs);
    this.connectTimer = connectTimer;
    socket.once('connect', () => {
      const hello: Hello = { hello: 1, key: secret.keyId, nonce: this.callerNonce };
      socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify(hello)));
    });
    const decoder = new FrameDecoder(MAX_ANSWER_BYTES, (id, payload) => (id === HANDSHAKE_EXCHANGE_ID ? this.handshake(payload) : this.settle(id, payload)));
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
    socket.on('error', () => undefined); // 'close' follows and fails what is in flight
    socket.on('close', () => {
      clearTimeout(connectTimer);
      this.waiting.length = 0;
      this.fail();
    });
    // The owner ended the connection (it is shutting down): nothing more will be answered on it.
    socket.on('end', () => socket.destroy());
  }

  /** Sends one command; the function returned forgets it (a late answer is dropped). */
  send(payload: string, exchange: Exchange): () => void {
    this.nextId = this.nextId === MAX_EXCHANGE_ID ? 1 : this.nextId + 1;
    const id = this.nextId;
    this.exchanges.set(id, exchange);
    const frame = encodeFrame(id, payload);
    if (this.connected) this.socket.write(frame);
    else this.waiting.push({ id, frame });
    return () => this.exchanges.delete(id);
  }

  close(): void {
    this.closed = true;
    // Before the handshake nothing was sent: what waits fails as not sent and goes to another instance.
    if (this.exchanges.size === 0 || !this.connected) this.socket.destroy();
    else this.socket.end();
  }

  /** Its writes are queued beyond the socket's buffer: the instance is not reading what it is sent. */
  get congested(): boolean {
    return this.socket.writableNeedDrain;
  }

  /** The owner's challenge: checks its proof, proves the secret back and sends what waited; or its refusal. */
  private handshake(payload: Buffer | undefined): void {
    if (this.connected) return;
    const frame = readHandshake(payload);
    const owner = `${this.socket.remoteAddress}:${this.socket.remotePort}`;
    if (typeof frame?.refused === 'string') {
      logger.warn(`the command port at ${owner} refused the connection: ${frame.refused}`);
      return void this.socket.destroy();
    }
    if (!frame || !isNonce(frame.nonce) || !this.secret.verifies(frame.proof, 'owner', this.callerNonce, frame.nonce)) {
      logger.warn(`the command port at ${owner} did not prove COMMAND_SECRET (another service, or a different secret): no command sent`);
      return void this.socket.destroy();
    }
    const proof: CallerProof = { proof: this.secret.proof('caller', this.callerNonce, frame.nonce) };
    this.socket.cork();
    this.socket.write(encodeFrame(HANDSHAKE_EXCHANGE_ID, JSON.stringify(proof)));
    clearTimeout(this.connectTimer);
    this.connected = true;
    // A command forgotten meanwhile (its caller gave up) is not sent at all.
    for (const { id, frame: command } of this.waiting.splice(0)) if (this.exchanges.has(id)) this.socket.write(command);
    this.socket.uncork();
    if (this.closed && this.exchanges.size === 0) this.socket.destroy();
  }

  /** Settles the exchange an answer is for; a connection being closed goes once its last answer is in. */
  private settle(id: number, payload: Buffer | undefined): void {
    const exchange = this.exchanges.get(id);
    if (exchange) {
      this.exchanges.delete(id);
      try {
        if (!payload) throw new Error('the answer is larger than the transport takes');
        exchange.resolve(JSON.parse(payload.toString('utf8')) as AnswerFrame);
      } catch (error) {
        exchange.reject(new ExchangeError('the answer is not readable', true, { cause: error }));
      }
    }
    if (this.closed && this.exchanges.size === 0) this.socket.destroy();
  }

  private fail(): void {
    this.closed = true;
    // Before the connection opened nothing was sent: another instance may take those commands at once.
    const error = new ExchangeError(this.connected ? 'the connection closed before the answer' : 'no connection', this.connected);
    const exchanges = [...this.exchanges.values()];
    this.exchanges.clear();
    for (const exchange of exchanges) exchange.reject(error);
  }
}

class Instance {
  private downUntil = 0;
  private readonly connections: Connection[] = [];
  private next = 0;
  /** When it last answered anything (a command, a ping). */
  private answeredAt = 0;
  /** It left a command unanswered past its window while answering nothing else: passed over until it answers. */
  private silent = false;
  private nextProbeAt = 0;
  /** When the ping on its way was sent (0: none is). */
  private pingSentAt = 0;

  constructor(
    readonly address: string,
    readonly host: string,
    readonly port: number,
    private readonly size: number,
    private readonly connectTimeoutMs: number,
    /** The owner's ping command, which every command-serving service answers without touching its database. */
    private readonly probePattern: string,
    private readonly secret: CommandSecret,
  ) {}

  /** Takes commands: no failed connection lately, not silent, and not refusing to read what it is sent. */
  isUp(now: number): boolean {
    return now >= this.downUntil && !this.silent && !this.congested();
  }

  markDown(ms: number): void {
    this.downUntil = Date.now() + ms;
  }

  /** Nothing came back since `at`: not even another command's answer. */
  silentSince(at: number): boolean {
    return this.answeredAt < at;
  }

  /** Connected but not answering: passed over until it answers again (see probe()). */
  markSilent(): void {
    if (this.silent) return;
    this.silent = true;
    this.nextProbeAt = 0;
  }

  /**
   * While it is silent, a ping at most every `everyMs`, so it takes commands again as soon as it answers and no
   * merchant's command is what finds out. Its late answers to earlier commands bring it back too.
   */
  probe(now: number, everyMs: number, waitMs: number): void {
    if (!this.silent || now < this.nextProbeAt) return;
    this.nextProbeAt = now + everyMs;
    this.ping(waitMs);
  }

  /**
   * Asks whether it is alive with its ping command (no database, so a process whose loop runs answers it at once),
   * unless a ping is already on its way; the answer counts like any other (silentSince).
   */
  ping(waitMs: number): void {
    const sentAt = Date.now();
    if (sentAt - this.pingSentAt < waitMs) return;
    this.pingSentAt = sentAt;
    const frame: CommandFrame = { pattern: this.probePattern, command_id: `probe-${randomUUID()}`, timeout_ms: waitMs, correlation_id: 'probe', body: {} };
    const done = () => {
      clearTimeout(timer);
      if (this.pingSentAt === sentAt) this.pingSentAt = 0;
    };
    const timer = setTimeout(() => {
      forget();
      done();
    }, waitMs);
    timer.unref();
    const forget = this.send(JSON.stringify(frame), { resolve: done, reject: done });
  }

  /** Sends one frame on its next connection; any answer shows the instance is alive. */
  send(payload: string, exchange: Exchange): () => void {
    return this.connection().send(payload, {
      resolve: (answer) => {
        this.answeredAt = Date.now();
        this.silent = false;
        exchange.resolve(answer);
      },
      reject: exchange.reject,
    });
  }

  /** Every open connection has writes queued (back-pressure): the instance is not reading. */
  private congested(): boolean {
    const open = this.connections.filter((connection) => connection && !connection.closed);
    return open.length > 0 && open.every((connection) => connection.congested);
  }

  /** The next of its connections, round-robin, opening one where none is or the last one closed. */
  private connection(): Connection {
    const slot = this.next;
    this.next = (slot + 1) % this.size;
    let connection = this.connections[slot];
    if (!connection || connection.closed) {
      connection = new Connection(this.host, this.port, this.connectTimeoutMs, this.secret);
      this.connections[slot] = connection;
    }
    return connection;
  }

  /** Commands in flight still get their answers. */
  close(): void {
    for (const connection of this.connections) connection.close();
  }
}

/** One service's instances: the configured addresses, host names expanded to every address they resolve to. */
class ServiceInstances {
  instances: Instance[] = [];
  next = 0;
  private resolvedAt = 0;
  private resolving?: Promise<void>;

  constructor(
    private readonly urls: URL[],
    private readonly newInstance: (address: string, host: string, port: number) => Instance,
    private readonly resolveEveryMs: number,
  ) {}

  /** The instances, resolved again when the last resolution is older than resolveEveryMs (never blocks once known). */
  async current(): Promise<Instance[]> {
    if (Date.now() - this.resolvedAt >= this.resolveEveryMs) {
      this.resolving ??= this.resolve().finally(() => (this.resolving = undefined));
      if (this.instances.length === 0) await this.resolving;
    }
    return this.instances;
  }

  close(): void {
    for (const instance of this.instances) instance.close();
  }

  private async resolve(): Promise<void> {
    const addresses = new Map<string, { host: string; port: number }>();
    const add = (host: string, port: number) => addresses.set(`${host.includes(':') ? `[${host}]` : host}:${port}`, { host, port });
    for (const url of this.urls) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const port = Number(url.port); // required by the setting's validation
      if (isIP(host)) {
        add(host, port);
        continue;
      }
      try {
        for (const { address } of await lookup(host, { all: true })) add(address, port);
      } catch {
        // Keep what was known; a name that never resolved leaves no instance (503) until it does.
        for (const instance of this.instances) if (instance.port === port) addresses.set(instance.address, instance);
      }
    }
    const kept = this.instances.filter((i) => addresses.has(i.address));
    const gone = this.instances.filter((i) => !addresses.has(i.address));
    const known = new Set(kept.map((i) => i.address));
    const added = [...addresses].filter(([address]) => !known.has(address)).map(([address, { host, port }]) => this.newInstance(address, host, port));
    this.instances = [...kept, ...added];
    this.resolvedAt = Date.now();
    // Commands in flight on a removed instance finish; its connections close after their last answer.
    for (const instance of gone) instance.close();
  }
}

/**
 * The caller's side of the command transport (a @nestjs/microservices ClientProxy over persistent framed
 * connections, command-frames.ts). Commands go round-robin over a service's instances (host names resolved to
 * all their addresses, again every `resolveEveryMs`). An instance that refuses a connection, drops one or is
 * shutting down is passed over for `downForMs` and the command goes to the next at once, so a dead instance's
 * share moves within one attempt. An instance that is connected but answers nothing for `answerWindowMs`, not
 * even a ping (stopped, blocked, not reading its socket), is passed over until it answers a ping, and a retryable
 * command waiting on it is sent to another instance with the same command id, the first answer winning. A command
 * whose answer was lost is sent again only when `retryable` (its owner deduplicates it by command id); otherwise
 * the caller gets CommandUnavailableError, never a second effect.
 * Every connection first proves COMMAND_SECRET to the owner and has the owner prove it back (command-auth.ts); an
 * owner that refuses or cannot counts as unreachable, and no command is sent to it.
 */
export class CommandClient extends ClientProxy {
  private readonly services = new Map<string, ServiceInstances>();
  private readonly downForMs: number;
  private readonly answerWindowMs: number;

  constructor(options: CommandClientOptions) {
    super();
    this.downForMs = options.downForMs ?? 1000;
    this.answerWindowMs = options.answerWindowMs ?? 1000;
    const connections = options.connections ?? 1;
    const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    const secret = new CommandSecrets(options.secrets).current;
    for (const [service, urls] of Object.entries(options.upstreams)) {
      const probePattern = commandPattern(service, 'ping');
      const newInstance = (address: string, host: string, port: number) => new Instance(address, host, port, connections, connectTimeoutMs, probePattern, secret);
      this.services.set(service, new ServiceInstances(urls.map((u) => new URL(u)), newInstance, options.resolveEveryMs ?? 5000));
    }
  }

  async connect(): Promise<void> {
    // Connections open on first use.
  }

  async close(): Promise<void> {
    for (const service of this.services.values()) service.close();
  }

  unwrap<T>(): T {
    return this.services as T;
  }

  override on(): never {
    throw new Error('the command transport has no events');
  }

  protected publish(packet: ReadPacket<CommandPacket>, callback: (packet: WritePacket) => void): () => void {
    const cancel: Cancellation = { cancelled: false };
    // Only a recorded trace is carried on: an unsampled request sends no context and costs no span.
    const sent = tracingEnabled() && recordingIn() ? this.tracedDispatch(packet.pattern as string, packet.data, cancel, otelContext.active()) : this.dispatch(packet.pattern as string, packet.data, cancel);
    sent.then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    // The caller gave up (its deadline): the exchanges in flight are forgotten; the connections stay.
    return () => {
      cancel.cancelled = true;
      cancel.abandon?.();
    };
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('events travel on Kafka, not on the command transport'));
  }

  /** One client span per command (retries to other instances included); the owner's span is its child. */
  private async tracedDispatch(pattern: string, command: CommandPacket, cancel: Cancellation, parent: Context): Promise<unknown> {
    const span = tracer().startSpan(pattern, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'payments-commands', 'rpc.method': pattern } }, parent);
    const trace: Record<string, string> = {};
    injectTraceHeaders(trace, otelTrace.setSpan(parent, span));
    try {
      return await this.dispatch(pattern, command, cancel, trace);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  private async dispatch(pattern: string, command: CommandPacket, cancel: Cancellation, trace?: { traceparent?: string; tracestate?: string }): Promise<unknown> {
    const service = this.services.get(serviceOfPattern(pattern));
    const instances = service ? await service.current() : [];
    if (!service || instances.length === 0) throw new CommandUnavailableError(`no instance of the owner of ${pattern}`);
    // Every instance once, plus one more try for the lone instance whose answer was lost.
    const maxAttempts = instances.length + 1;
    let attempts = 0;
    const inFlight: Attempt[] = [];
    let lastError: unknown;
    const gaveUp = new Promise<'gave up'>((resolve) => (cancel.abandon = () => resolve('gave up')));
    const launch = (): boolean => {
      const remaining = command.deadline - Date.now();
      if (remaining <= 0 || cancel.cancelled || attempts >= maxAttempts) return false;
      const instance = this.pick(service, instances, inFlight);
      if (!instance) return false;
      attempts++;
      const frame: CommandFrame = { pattern, command_id: command.command_id, timeout_ms: remaining, correlation_id: command.correlation_id, body: command.body, ...trace };
      // The window in two halves: the command alone, then the command and a ping.
      inFlight.push(attempt(instance, JSON.stringify(frame), Math.min(this.answerWindowMs, Math.floor(remaining / 2)) / 2));
      return true;
    };
    try {
      launch();
      while (inFlight.length > 0) {
        const remaining = command.deadline - Date.now();
        if (remaining <= 0 || cancel.cancelled) break;
        const newest = inFlight[inFlight.length - 1]!;
        const outcome = await firstOf(inFlight, Math.min(newest.windowEndsAt - Date.now(), remaining), gaveUp);
        if (outcome === 'gave up') break;
        if (outcome === 'window passed') {
          if (Date.now() >= command.deadline) break;
          const { instance } = newest;
          if (!instance.silentSince(newest.watchedFrom)) {
            // It answers other commands or a ping: this one is slow (a lock, a provider), not lost. Sending it
            // elsewhere would only double the work.
            newest.watchAgain();
            continue;
          }
          if (!newest.pinged) {
            // Half the window without a word from it: a ping tells a busy instance from a hung one.
            instance.ping(this.answerWindowMs);
            newest.pinged = true;
            newest.waitOnce();
            continue;
          }
          instance.markSilent();
          // Hung: the same command id to another instance; whichever answers first is the answer.
          if (!command.retryable || !launch()) newest.stopWatching();
          continue;
        }
        inFlight.splice(inFlight.indexOf(outcome.attempt), 1);
        const { instance } = outcome.attempt;
        if (outcome.answer?.status === 503) {
          // Shutting down: the command did not run there.
          instance.markDown(this.downForMs);
          lastError = new CommandUnavailableError(`${instance.address} is shutting down`);
          if (inFlight.length === 0) launch();
          continue;
        }
        if (outcome.answer) return outcome.answer.reply;
        lastError = outcome.error;
        if (cancel.cancelled) break;
        instance.markDown(this.downForMs);
        if (inFlight.length === 0 && (!outcome.error!.sent || command.retryable)) launch();
      }
    } finally {
      cancel.abandon = undefined;
      for (const left of inFlight) left.forget();
    }
    throw new CommandUnavailableError(`no answer to ${pattern}`, { cause: lastError });
  }

  /**
   * The next instance that is up and not already carrying this command, round-robin; when none is, the next one
   * not carrying it anyway (it may be back); none when every instance carries it. Pings the silent ones.
   */
  private pick(service: ServiceInstances, instances: Instance[], carrying: readonly Attempt[]): Instance | undefined {
    const now = Date.now();
    const count = instances.length;
    let fallback: number | undefined;
    for (let i = 0; i < count; i++) {
      const at = (service.next + i) % count;
      const instance = instances[at]!;
      instance.probe(now, this.downForMs, this.answerWindowMs);
      if (carrying.some((a) => a.instance === instance)) continue;
      if (instance.isUp(now)) {
        service.next = (at + 1) % count;
        return instance;
      }
      fallback ??= at;
    }
    if (fallback === undefined) return undefined;
    service.next = (fallback + 1) % count;
    return instances[fallback];
  }
}

interface Cancellation {
  cancelled: boolean;
  /** Stops waiting for the exchanges in flight (set while some are). */
  abandon?: () => void;
}

/** One sending of a command to one instance, and the window in which that instance is expected to show life. */
interface Attempt {
  readonly instance: Instance;
  readonly settled: Promise<Settled>;
  /** Since when an answer from the instance (to anything) counts as a sign of life. */
  watchedFrom: number;
  windowEndsAt: number;
  /** A ping went to the instance during this window. */
  pinged: boolean;
  /** A new window from now (the instance showed life). */
  watchAgain(): void;
  /** Another half window, still counting from watchedFrom. */
  waitOnce(): void;
  stopWatching(): void;
  /** Drops the exchange: a late answer is ignored. */
  forget(): void;
}

type Settled = { attempt: Attempt; answer: AnswerFrame; error?: undefined } | { attempt: Attempt; answer?: undefined; error: ExchangeError };

function attempt(instance: Instance, payload: string, halfWindowMs: number): Attempt {
  const sentAt = Date.now();
  let settle!: (settled: Settled) => void;
  const created: Attempt = {
    instance,
    settled: new Promise<Settled>((resolve) => (settle = resolve)),
    watchedFrom: sentAt,
    windowEndsAt: sentAt + halfWindowMs,
    pinged: false,
    watchAgain() {
      this.watchedFrom = Date.now();
      this.windowEndsAt = this.watchedFrom + halfWindowMs;
      this.pinged = false;
    },
    waitOnce() {
      this.windowEndsAt = Date.now() + halfWindowMs;
    },
    stopWatching() {
      this.windowEndsAt = Number.POSITIVE_INFINITY;
    },
    forget: () => undefined,
  };
  created.forget = instance.send(payload, {
    resolve: (answer) => settle({ attempt: created, answer }),
    reject: (error) => settle({ attempt: created, error }),
  });
  return created;
}

/** Whichever comes first: an attempt settling, `waitMs` passing, or the caller giving up. */
async function firstOf(inFlight: readonly Attempt[], waitMs: number, gaveUp: Promise<'gave up'>): Promise<Settled | 'window passed' | 'gave up'> {
  let timer: NodeJS.Timeout | undefined;
  const windowPassed = new Promise<'window passed'>((resolve) => (timer = setTimeout(() => resolve('window passed'), Math.max(0, waitMs))));
  try {
    return await Promise.race([...inFlight.map((a) => a.settled), windowPassed, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
