// One request with the client's retry rules. A retry is safe because every POST carries an Idempotency-Key that
// stays the same across the retries of one call: the service answers a repeat with the first answer (or creates
// nothing twice), so a create whose answer was lost is retried into the one object it made.
import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromAnswer, type PaymentsError } from './errors';

export interface ClientOptions {
  /** `pay_test_…` or `pay_live_…`. */
  apiKey: string;
  /** The service's base address, e.g. `https://pay.example`. Default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Retries after the first attempt. Default 2; `Infinity` bounds a call by `retryDeadlineMs` alone. */
  maxRetries?: number;
  /**
   * Total time of a call in ms, from its first attempt: no retry is made whose wait would end past it (the last
   * error goes to the caller). An attempt under way is bounded by `timeoutMs`, not cut. Default none.
   */
  retryDeadlineMs?: number;
  /**
   * HTTP statuses retried, besides a lost connection, a timeout and 409 `idempotency_request_in_progress` (always
   * retried). Default `[429, 503]`. Only 408, 429 and 5xx may be named: another 4xx answers the same however often
   * it is sent. 500, 502 and 504 are safe to add (every POST carries its Idempotency-Key, so a repeat never makes a
   * second object) and worth it behind a proxy or under faults; they are not retried by default because a 500 is
   * not known to be transient.
   */
  retryStatuses?: readonly number[];
  /** Per attempt, in ms. Default 30000. */
  timeoutMs?: number;
  /** First backoff in ms (doubled each retry, jittered) when the answer has no Retry-After. Default 500. */
  retryBaseDelayMs?: number;
  /** Longest backoff of the client's own (no Retry-After) in ms. Default `maxRetryDelayMs`. */
  maxBackoffMs?: number;
  /** Longest wait between attempts in ms, Retry-After included: a longer Retry-After is not retried. Default 30000. */
  maxRetryDelayMs?: number;
  /** A fetch of your own (proxies, instrumentation). Default the global fetch. */
  fetch?: typeof fetch;
  /** Observers of every attempt (metrics, logs, counting calls in flight). */
  hooks?: ClientHooks;
}

export interface RequestOptions {
  /** For a POST: the key of this operation (≤ 190 characters). Generated when not given. */
  idempotencyKey?: string;
  maxRetries?: number;
  retryDeadlineMs?: number;
  retryStatuses?: readonly number[];
  timeoutMs?: number;
  /** Cancels the call (no retry after it). */
  signal?: AbortSignal;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One attempt of a call (the first, or a retry). */
export interface AttemptEvent {
  method: HttpMethod;
  /** The route with its query, without the base address: `/api/v1/payment-intents/pi_test_…`. */
  path: string;
  /** 1 for the first attempt of a call, 2 for its first retry, … */
  attempt: number;
  /** The key a POST or PATCH carries (the same on every attempt of a call). */
  idempotencyKey: string | undefined;
}

/** How an attempt ended: answered (any status) or not. */
export interface AttemptResultEvent extends AttemptEvent {
  /** The answer's status; undefined when none came (connection lost, timeout, call aborted). */
  status: number | undefined;
  requestId: string | undefined;
  durationMs: number;
  /** Why the attempt failed (what the caller gets if no retry follows); undefined for a 2xx. */
  error: PaymentsError | undefined;
  /** The client makes another attempt of this call, after `retryInMs`. */
  retrying: boolean;
  retryInMs: number | undefined;
}

/**
 * Called synchronously around every attempt. They observe, never steer: what a hook throws is ignored, so an
 * observer cannot turn a payment made into an error.
 */
export interface ClientHooks {
  /** An attempt is about to be sent. */
  onRequest?(event: AttemptEvent): void;
  /** The attempt ended: exactly once per `onRequest`. A failed attempt is one with `error` (and `retrying` says what follows). */
  onResponse?(event: AttemptResultEvent): void;
}

/** What came with an answer, on every returned object as the non-enumerable `lastResponse`. */
export interface ResponseMeta {
  status: number;
  requestId: string | undefined;
  headers: Headers;
  /** The key a POST or PATCH carried (the same on every attempt). */
  idempotencyKey: string | undefined;
  /** True when the service replayed the first answer for this Idempotency-Key. */
  idempotentReplayed: boolean;
  /** Attempts made, retries included. */
  attempts: number;
}

export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

const DEFAULT_RETRY_STATUSES: readonly number[] = [429, 503];
const VERSION = '1.0.0';

export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly retryDeadlineMs: number | undefined;
  private readonly retryStatuses: ReadonlySet<number>;
  private readonly timeoutMs: number;
  private readonly baseDelayMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxDelayMs: number;
  private readonly fetch: typeof fetch;
  private readonly hooks: ClientHooks;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new Error('the client needs an API key (pay_test_… or pay_live_…)');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.retryDeadlineMs = options.retryDeadlineMs;
    this.retryStatuses = retryStatusSet(options.retryStatuses ?? DEFAULT_RETRY_STATUSES);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.baseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.maxBackoffMs = options.maxBackoffMs ?? this.maxDelayMs;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.hooks = options.hooks ?? {};
  }

  async request<T>(method: HttpMethod, path: string, body?: unknown, options: RequestOptions = {}, query?: object): Promise<WithResponse<T>> {
    const idempotencyKey = method === 'POST' || method === 'PATCH' ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const deadlineMs = options.retryDeadlineMs ?? this.retryDeadlineMs;
    const retryStatuses = options.retryStatuses ? retryStatusSet(options.retryStatuses) : this.retryStatuses;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const route = path + queryString(query);
    const url = this.baseUrl + route;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': `payments-node/${VERSION} node/${process.versions.node}`,
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const callStarted = Date.now();

    for (let attempt = 1; ; attempt++) {
      const event: AttemptEvent = { method, path: route, attempt, idempotencyKey };
      const attemptStarted = Date.now();
      const ended = (result: Omit<AttemptResultEvent, keyof AttemptEvent | 'durationMs'>) =>
        this.notify('onResponse', { ...event, durationMs: Date.now() - attemptStarted, ...result });
      let res: Response | undefined;
      let text = '';
      let error: PaymentsError | undefined;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), timeoutMs);
      const onAbort = () => timeout.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.notify('onRequest', event);
      try {
        if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
        res = await this.fetch(url, { method, headers, body: payload, signal: timeout.signal });
        // The body is part of the answer: a connection lost while it streams is a lost answer too.
        text = await res.text();
      } catch (cause) {
        const message = `${method} ${path}: ${describe(cause)}`;
        if (options.signal?.aborted) {
          ended({ status: undefined, requestId: undefined, error: new ConnectionError({ code: 'aborted', message, idempotencyKey, attempts: attempt, cause }), retrying: false, retryInMs: undefined });
          // The caller's own reason, as a cancelled sleep between attempts gives.
          throw options.signal.reason ?? cause;
        }
        const timedOut = timeout.signal.aborted;
        // The request may have been carried out: only a call whose repeat is harmless is retried (every POST has its key).
        error = new ConnectionError({
          code: timedOut ? 'timeout' : 'connection_error',
          message: timedOut ? `${method} ${path}: no answer within ${timeoutMs} ms` : message,
          idempotencyKey,
          attempts: attempt,
          cause,
        });
        res = undefined;
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }

      const parsed = res === undefined ? undefined : parseJson(text);
      if (res?.ok && parsed === UNREADABLE) {
        // A success whose body is not the object (cut short, or a proxy's page): the answer is lost, as if the
        // connection had dropped, and the repeat is as harmless (every POST has its key).
        error = new ConnectionError({
          code: 'invalid_response',
          message: `${method} ${path}: answered ${res.status} with a body that is not JSON`,
          idempotencyKey,
          attempts: attempt,
          cause: undefined,
        });
        res = undefined;
      }
      let delay: number | undefined;
      if (res === undefined) {
        delay = this.backoff(attempt);
      } else {
        const requestId = res.headers.get('request-id') ?? undefined;
        if (res.ok) {
          const meta: ResponseMeta = {
            status: res.status,
            requestId,
            headers: res.headers,
            idempotencyKey,
            idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
            attempts: attempt,
          };
          const value = (parsed ?? {}) as object; // an empty body (e.g. 204) is an empty object
          Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
          ended({ status: res.status, requestId, error: undefined, retrying: false, retryInMs: undefined });
          return value as WithResponse<T>;
        }
        // An error's body that is not JSON (a proxy's page) still has its status, which the error is made from.
        error = errorFromAnswer(res.status, parsed === UNREADABLE ? undefined : parsed, res.headers, idempotencyKey, attempt);
        // A Retry-After longer than the client may wait gives undefined: never sooner than asked, so the error goes to the caller.
        delay = isRetryable(error, retryStatuses) ? this.delayFor(res.headers, attempt) : undefined;
      }
      const failed = error!;
      const retrying = delay !== undefined && attempt <= maxRetries && (deadlineMs === undefined || Date.now() + delay - callStarted <= deadlineMs);
      ended({ status: failed.status, requestId: failed.requestId, error: failed, retrying, retryInMs: retrying ? delay : undefined });
      if (!retrying) throw failed;
      await sleep(delay!, options.signal);
    }
  }

  private notify<K extends keyof ClientHooks>(hook: K, event: Parameters<NonNullable<ClientHooks[K]>>[0]): void {
    try {
      (this.hooks[hook] as ((event: unknown) => void) | undefined)?.(event);
    } catch {
      // An observer's failure is not the call's.
    }
  }

  /**
   * Retry-After when the answer has one (at least that long, plus up to a quarter more so waiting callers spread
   * out), else backoff; undefined when Retry-After is beyond maxRetryDelayMs.
   */
  private delayFor(headers: Headers, attempt: number): number | undefined {
    const retryAfter = retryAfterMs(headers.get('retry-after'));
    if (retryAfter === undefined) return this.backoff(attempt);
    if (retryAfter > this.maxDelayMs) return undefined;
    return retryAfter + Math.random() * Math.min(1000, retryAfter / 4);
  }

  /** Exponential with jitter: between half and all of base × 2^(attempt-1), capped. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxBackoffMs, this.baseDelayMs * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/** 409 `idempotency_request_in_progress` always; the listed statuses; never another 4xx. */
function isRetryable(error: PaymentsError, statuses: ReadonlySet<number>): boolean {
  if (error.status !== undefined && statuses.has(error.status)) return true;
  return error.status === 409 && error.code === 'idempotency_request_in_progress';
}

/** Only statuses a repeat can change: 408, 429 and 5xx. */
function retryStatusSet(statuses: readonly number[]): ReadonlySet<number> {
  for (const status of statuses) {
    if (!(status === 408 || status === 429 || (Number.isInteger(status) && status >= 500 && status <= 599))) {
      throw new RangeError(`retryStatuses: ${status} is not retryable (408, 429 and 5xx only; another 4xx answers the same when sent again)`);
    }
  }
  return new Set(statuses);
}

/** Seconds or an HTTP date. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function queryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** What parseJson gives for a body that is not JSON. */
const UNREADABLE = Symbol('unreadable body');

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return UNREADABLE;
  }
}

function describe(cause: unknown): string {
  const error = cause as { message?: string; cause?: { code?: string; message?: string } };
  return [error?.message, error?.cause?.code ?? error?.cause?.message].filter(Boolean).join(': ') || String(cause);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
