// One request with the client's retry rules. A retry is safe because every POST carries an Idempotency-Key that
// stays the same across the retries of one call: the service answers a repeat with the first answer (or creates
// nothing twice), so a create whose answer was lost is retried into the one object it made.
import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromAnswer, PaymentsError } from './errors';

export interface ClientOptions {
  /** `pay_test_…` or `pay_live_…`. */
  apiKey: string;
  /** The service's base address, e.g. `https://pay.example`. Default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Retries after the first attempt (network errors, 409 in progress, 429, 503). Default 2. */
  maxRetries?: number;
  /** Per attempt, in ms. Default 30000. */
  timeoutMs?: number;
  /** First backoff in ms (doubled each retry, jittered) when the answer has no Retry-After. Default 500. */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts in ms, Retry-After included. Default 30000. */
  maxRetryDelayMs?: number;
  /** A fetch of your own (proxies, instrumentation). Default the global fetch. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** For a POST: the key of this operation (≤ 190 characters). Generated when not given. */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  /** Cancels the call (no retry after it). */
  signal?: AbortSignal;
}

/** What came with an answer, on every returned object as the non-enumerable `lastResponse`. */
export interface ResponseMeta {
  status: number;
  requestId: string | undefined;
  headers: Headers;
  /** The key a POST carried (the same on every attempt). */
  idempotencyKey: string | undefined;
  /** True when the service replayed the first answer for this Idempotency-Key. */
  idempotentReplayed: boolean;
  /** Attempts made, retries included. */
  attempts: number;
}

export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

const RETRYABLE_STATUS = new Set([429, 503]);
const VERSION = '1.0.0';

export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new Error('the client needs an API key (pay_test_… or pay_live_…)');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.baseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, options: RequestOptions = {}, query?: object): Promise<WithResponse<T>> {
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const url = this.baseUrl + path + queryString(query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': `payments-node/${VERSION} node/${process.versions.node}`,
    };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';

    for (let attempt = 1; ; attempt++) {
      const retriesLeft = attempt <= maxRetries;
      let res: Response;
      let text: string;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), options.timeoutMs ?? this.timeoutMs);
      const onAbort = () => timeout.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
        res = await this.fetch(url, { method, headers, body: payload, signal: timeout.signal });
        // The body is part of the answer: a connection lost while it streams is a lost answer too.
        text = await res.text();
      } catch (cause) {
        if (options.signal?.aborted) throw cause;
        const timedOut = timeout.signal.aborted;
        const error = new ConnectionError({
          code: timedOut ? 'timeout' : 'connection_error',
          message: timedOut ? `${method} ${path}: no answer within ${options.timeoutMs ?? this.timeoutMs} ms` : `${method} ${path}: ${describe(cause)}`,
          idempotencyKey,
          cause,
        });
        // The request may have been carried out: only a call whose repeat is harmless is retried (every POST has its key).
        if (!retriesLeft) throw error;
        await sleep(this.backoff(attempt), options.signal);
        continue;
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }

      const parsed = parseJson(text);
      if (res.ok) {
        const meta: ResponseMeta = {
          status: res.status,
          requestId: res.headers.get('request-id') ?? undefined,
          headers: res.headers,
          idempotencyKey,
          idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
          attempts: attempt,
        };
        const value = (parsed ?? {}) as object;
        Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
        return value as WithResponse<T>;
      }
      const error = errorFromAnswer(res.status, parsed, res.headers, idempotencyKey);
      if (!retriesLeft || !isRetryable(error)) throw error;
      const delay = this.delayFor(res.headers, attempt);
      // Asked to wait longer than the client may: never sooner than asked, so the error goes to the caller.
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
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
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/** 429, 503 and 409 `idempotency_request_in_progress`; never another 4xx. */
function isRetryable(error: PaymentsError): boolean {
  if (error.status !== undefined && RETRYABLE_STATUS.has(error.status)) return true;
  return error.status === 409 && error.code === 'idempotency_request_in_progress';
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

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
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
