import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { lookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';
import { serviceOfPattern } from './command-pattern';
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
  /** How long a connection may take to open before the instance counts as unreachable. */
  connectTimeoutMs?: number;
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

/**
 * One persistent connection to one instance, carrying any number of commands at once: each frame has an
 * exchange id, and an answer settles the exchange with that id, in whatever order they come.
 */
class Connection {
  private readonly socket: Socket;
  private readonly exchanges = new Map<number, Exchange>();
  private nextId = 0;
  private connected = false;
  closed = false;

  constructor(host: string, port: number, connectTimeoutMs: number) {
    const socket = connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 10_000 });
    this.socket = socket;
    // Closing it fails its exchanges as not sent (it never opened).
    const connectTimer = setTimeout(() => socket.destroy(), connectTimeoutMs);
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      this.connected = true;
    });
    const decoder = new FrameDecoder(MAX_ANSWER_BYTES, (id, payload) => this.settle(id, payload));
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
    socket.on('error', () => undefined); // 'close' follows and fails what is in flight
    socket.on('close', () => {
      clearTimeout(connectTimer);
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
    this.socket.write(encodeFrame(id, payload));
    return () => this.exchanges.delete(id);
  }

  close(): void {
    this.closed = true;
    if (this.exchanges.size === 0) this.socket.destroy();
    else this.socket.end();
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

  constructor(
    readonly address: string,
    readonly host: string,
    readonly port: number,
    private readonly size: number,
    private readonly connectTimeoutMs: number,
  ) {}

  isUp(now: number): boolean {
    return now >= this.downUntil;
  }

  markDown(ms: number): void {
    this.downUntil = Date.now() + ms;
  }

  /** The next of its connections, round-robin, opening one where none is or the last one closed. */
  connection(): Connection {
    const slot = this.next;
    this.next = (slot + 1) % this.size;
    let connection = this.connections[slot];
    if (!connection || connection.closed) {
      connection = new Connection(this.host, this.port, this.connectTimeoutMs);
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
 * share moves within one attempt. A command whose answer was lost is sent again only when `retryable` (its owner
 * deduplicates it by command id); otherwise the caller gets CommandUnavailableError, never a second effect.
 */
export class CommandClient extends ClientProxy {
  private readonly services = new Map<string, ServiceInstances>();
  private readonly downForMs: number;

  constructor(options: CommandClientOptions) {
    super();
    this.downForMs = options.downForMs ?? 1000;
    const connections = options.connections ?? 1;
    const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    const newInstance = (address: string, host: string, port: number) => new Instance(address, host, port, connections, connectTimeoutMs);
    for (const [service, urls] of Object.entries(options.upstreams)) {
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
    this.dispatch(packet.pattern as string, packet.data, cancel).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    // The caller gave up (its deadline): the exchange in flight is forgotten; the connection stays.
    return () => {
      cancel.cancelled = true;
      cancel.abandon?.();
    };
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('events travel on Kafka, not on the command transport'));
  }

  private async dispatch(pattern: string, command: CommandPacket, cancel: Cancellation): Promise<unknown> {
    const service = this.services.get(serviceOfPattern(pattern));
    const instances = service ? await service.current() : [];
    if (!service || instances.length === 0) throw new CommandUnavailableError(`no instance of the owner of ${pattern}`);
    // Every instance once, plus one more try for the lone instance whose answer was lost.
    const attempts = instances.length + 1;
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const remaining = command.deadline - Date.now();
      if (remaining <= 0 || cancel.cancelled) break;
      const instance = this.pick(service, instances);
      const frame: CommandFrame = {
        pattern,
        command_id: command.command_id,
        timeout_ms: remaining,
        correlation_id: command.correlation_id,
        body: command.body,
      };
      try {
        const answer = await exchange(instance.connection(), JSON.stringify(frame), cancel);
        if (answer.status === 503) {
          // Shutting down: the command did not run there.
          instance.markDown(this.downForMs);
          lastError = new CommandUnavailableError(`${instance.address} is shutting down`);
          continue;
        }
        return answer.reply;
      } catch (error) {
        lastError = error;
        if (cancel.cancelled) break;
        instance.markDown(this.downForMs);
        if (!(error as ExchangeError).sent || command.retryable) continue;
        break;
      }
    }
    throw new CommandUnavailableError(`no answer to ${pattern}`, { cause: lastError });
  }

  /** The next instance that is up, round-robin; when none is, the next one anyway (it may be back). */
  private pick(service: ServiceInstances, instances: Instance[]): Instance {
    const now = Date.now();
    const count = instances.length;
    for (let i = 0; i < count; i++) {
      const instance = instances[(service.next + i) % count]!;
      if (instance.isUp(now)) {
        service.next = (service.next + i + 1) % count;
        return instance;
      }
    }
    const instance = instances[service.next % count]!;
    service.next = (service.next + 1) % count;
    return instance;
  }
}

interface Cancellation {
  cancelled: boolean;
  /** Forgets the exchange in flight (set while one is). */
  abandon?: () => void;
}

function exchange(connection: Connection, payload: string, cancel: Cancellation): Promise<AnswerFrame> {
  return new Promise((resolve, reject) => {
    const forget = connection.send(payload, {
      resolve: (answer) => {
        cancel.abandon = undefined;
        resolve(answer);
      },
      reject: (error) => {
        cancel.abandon = undefined;
        reject(error);
      },
    });
    cancel.abandon = () => {
      forget();
      reject(new ExchangeError('the caller gave up', true));
    };
  });
}
