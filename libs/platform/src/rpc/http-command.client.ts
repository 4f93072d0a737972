import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import { serviceOfPattern } from './command-pattern';
import { COMMAND_HEADERS, COMMAND_PATH, type RpcRequest } from './rpc-message';

/** What ServiceClient hands the transport: the envelope, and whether a retry after an unknown outcome is safe. */
export interface CommandPacket extends RpcRequest {
  /** The owner deduplicates this command by its id, so it may be sent again when its answer was lost. */
  retryable: boolean;
}

export interface HttpCommandClientOptions {
  /** Base URLs of each service's instances, e.g. `{ sessions: ['http://127.0.0.1:4001', 'http://127.0.0.1:4011'] }`. */
  upstreams: Record<string, string[]>;
  /** Keep-alive connections per instance. */
  connections?: number;
  /** How long an instance that refused or dropped a connection is passed over. */
  downForMs?: number;
  /**
   * How often a host name is resolved again. A name is resolved to every address it has (a Kubernetes headless
   * Service answers one per ready pod), and each address is an instance of its own.
   */
  resolveEveryMs?: number;
}

/** The owner could not be reached or did not answer: the caller answers 503 and the merchant retries. */
export class CommandUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandUnavailableError';
  }
}

interface Cancellation {
  cancelled: boolean;
  /** Cuts the exchange in flight (set while one is). */
  abort?: (error: Error) => void;
}

/**
 * One request and its whole answer through undici's dispatcher interface: no stream or AbortSignal per command,
 * which halved the client's CPU per command against `pool.request` (docs/decisions.md).
 */
function exchange(pool: Pool, options: Dispatcher.DispatchOptions, cancel: Cancellation): Promise<{ statusCode: number; text: string }> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onConnect(abort) {
        if (cancel.cancelled) abort(new CommandUnavailableError('the caller gave up'));
        else cancel.abort = abort;
      },
      onHeaders(status) {
        statusCode = status;
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        cancel.abort = undefined;
        resolve({ statusCode, text: Buffer.concat(chunks).toString('utf8') });
      },
      onError(error) {
        cancel.abort = undefined;
        reject(error);
      },
    });
  });
}

/** Errors after which the command was certainly not delivered: another instance may take it at once. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

class Instance {
  private downUntil = 0;

  constructor(
    readonly url: string,
    readonly pool: Pool,
  ) {}

  isUp(now: number): boolean {
    return now >= this.downUntil;
  }

  markDown(ms: number): void {
    this.downUntil = Date.now() + ms;
  }
}

/** One service's instances: the configured URLs, host names expanded to every address they resolve to. */
class ServiceInstances {
  instances: Instance[] = [];
  next = 0;
  private resolvedAt = 0;
  private resolving?: Promise<void>;

  constructor(
    private readonly urls: URL[],
    private readonly newPool: (origin: string) => Pool,
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

  async close(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.pool.close()));
  }

  private async resolve(): Promise<void> {
    const origins = new Set<string>();
    for (const url of this.urls) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        origins.add(url.origin);
        continue;
      }
      try {
        for (const { address, family } of await lookup(host, { all: true })) {
          origins.add(`${url.protocol}//${family === 6 ? `[${address}]` : address}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`);
        }
      } catch {
        // Keep what was known; a name that never resolved leaves no instance (503) until it does.
        for (const instance of this.instances) if (instance.url.startsWith(url.protocol)) origins.add(instance.url);
      }
    }
    const kept = this.instances.filter((i) => origins.has(i.url));
    const gone = this.instances.filter((i) => !origins.has(i.url));
    const known = new Set(kept.map((i) => i.url));
    const added = [...origins].filter((o) => !known.has(o)).map((o) => new Instance(o, this.newPool(o)));
    this.instances = [...kept, ...added];
    this.resolvedAt = Date.now();
    // Requests in flight on a removed instance finish; close() waits for them.
    for (const instance of gone) void instance.pool.close();
  }
}

/**
 * The caller's side of the command transport (@nestjs/microservices ClientProxy over undici keep-alive pools).
 * Commands go round-robin over a service's instances (host names resolved to all their addresses, again every
 * `resolveEveryMs`). An instance that refuses a connection, drops one or is
 * shutting down is passed over for `downForMs` and the command goes to the next at once, so a dead instance's
 * share moves within one attempt. A command whose answer was lost is sent again only when `retryable` (its owner
 * deduplicates it by command id); otherwise the caller gets CommandUnavailableError, never a second effect.
 */
export class HttpCommandClient extends ClientProxy {
  private readonly services = new Map<string, ServiceInstances>();
  private readonly downForMs: number;

  constructor(options: HttpCommandClientOptions) {
    super();
    this.downForMs = options.downForMs ?? 1000;
    const newPool = (origin: string) => new Pool(origin, { connections: options.connections ?? 32, keepAliveTimeout: 30_000, pipelining: 1 });
    for (const [service, urls] of Object.entries(options.upstreams)) {
      this.services.set(service, new ServiceInstances(urls.map((u) => new URL(u)), newPool, options.resolveEveryMs ?? 5000));
    }
  }

  async connect(): Promise<void> {
    // Pools connect on first use.
  }

  async close(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.close()));
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
    // The caller gave up (its deadline): the exchange in flight is cut, which frees the connection.
    return () => {
      cancel.cancelled = true;
      cancel.abort?.(new CommandUnavailableError('the caller gave up'));
    };
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('events travel on Kafka, not on the command transport'));
  }

  private async dispatch(pattern: string, command: CommandPacket, cancel: Cancellation): Promise<unknown> {
    const service = this.services.get(serviceOfPattern(pattern));
    const instances = service ? await service.current() : [];
    if (!service || instances.length === 0) throw new CommandUnavailableError(`no instance of the owner of ${pattern}`);
    const body = JSON.stringify(command.body);
    const path = COMMAND_PATH + pattern;
    // Every instance once, plus one more try for the lone instance whose answer was lost.
    const attempts = instances.length + 1;
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const remaining = command.deadline - Date.now();
      if (remaining <= 0 || cancel.cancelled) break;
      const instance = this.pick(service, instances);
      try {
        const { statusCode, text } = await exchange(
          instance.pool,
          {
            method: 'POST',
            path,
            headers: {
              'content-type': 'application/json',
              [COMMAND_HEADERS.id]: command.command_id,
              [COMMAND_HEADERS.timeout]: String(remaining),
              [COMMAND_HEADERS.correlation]: command.correlation_id,
            },
            body,
          },
          cancel,
        );
        if (statusCode === 503) {
          // Shutting down: the command did not run there.
          instance.markDown(this.downForMs);
          lastError = new CommandUnavailableError(`${instance.url} is shutting down`);
          continue;
        }
        return JSON.parse(text);
      } catch (error) {
        lastError = error;
        if (cancel.cancelled) break;
        const code = (error as { code?: string }).code ?? '';
        instance.markDown(this.downForMs);
        if (NOT_SENT.has(code) || command.retryable) continue;
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
