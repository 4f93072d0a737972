import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import { HostResolver, resolveWebhookTarget, type AttemptOutcome, type HostLookup, type HostResolverOptions, type TargetRefusal } from '@payments/webhooks';
import { Agent, request } from 'undici';

/** Most of an answer kept with the attempt. */
const logger = new Logger('WebhookSender');

export const RESPONSE_EXCERPT_BYTES = 1024;

export interface WebhookSenderOptions {
  /** Whole attempt: resolving, connecting, sending, and reading the answer's first KiB. */
  timeoutMs: number;
  /** Development and tests: `http://` and loopback targets too. */
  allowInsecure: boolean;
  /** Name resolution: a HostResolver with these settings, unless `lookup` is given (tests give a table). */
  dns?: HostResolverOptions;
  lookup?: HostLookup;
  /** Extra TLS settings (tests trust their own certificate authority). */
  tls?: Pick<ConnectionOptions, 'ca'>;
}

export interface SendResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  /** From sending to the answer's headers (or to the failure). */
  latencyMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** Set when the target was refused before any connection was made. */
  refused?: TargetRefusal;
}

/** Postgres text cannot hold NUL; the excerpt is for people to read. */
const printable = (text: string) => text.replace(/\u0000/g, '');

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as NodeJS.ErrnoException).code ?? (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * Sends one webhook attempt. The URL is resolved and every address checked against the SSRF rules at each
 * attempt; the request then goes to the checked address itself (the URL's host is replaced by it), with the
 * configured host in the Host header and as the TLS server name, so the certificate is still verified for the
 * merchant's name and a DNS answer that changes after the check cannot redirect the connection. Redirects are
 * not followed (a 3xx is a failure like any non-2xx).
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly lookup: HostLookup;

  constructor(private readonly options: WebhookSenderOptions) {
    this.lookup = options.lookup ?? new HostResolver(options.dns).lookup;
    this.agent = new Agent({
      connect: { timeout: options.timeoutMs, ...(options.tls ?? {}) },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4000,
      keepAliveMaxTimeout: 30_000,
    });
  }

  /** `owner` (the endpoint's merchant) shares a cap on name lookups in flight with the owner's other attempts. */
  async send(url: string, body: string, headers: Record<string, string>, owner?: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    try {
      const lookup: HostLookup = (host) => this.lookup(host, { owner, signal: controller.signal });
      const check = await resolveWebhookTarget(url, { allowInsecure: this.options.allowInsecure }, lookup);
      if (!check.ok) {
        // The attempt (which the merchant can read) says only that; the address and its kind go to our log.
        logger.warn({ reason: check.reason, address: check.address, url }, 'webhook target refused at delivery');
        const error = `target refused: ${check.message}`;
        return { outcome: { kind: 'error', error }, statusCode: null, latencyMs: null, responseExcerpt: null, error, refused: check.reason };
      }
      const target = check.target;
      const response = await request(target.connectUrl, {
        method: 'POST',
        headers: { ...headers, host: target.hostHeader },
        body,
        dispatcher: this.agent,
        signal: controller.signal,
        maxRedirections: 0,
        ...(target.servername !== null ? { servername: target.servername } : {}),
      } as Parameters<typeof request>[1]);
      const latencyMs = elapsed();
      const excerpt = await this.readExcerpt(response.body);
      const retryAfter = response.headers['retry-after'];
      return {
        outcome: { kind: 'response', status: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter },
        statusCode: response.statusCode,
        latencyMs,
        responseExcerpt: excerpt,
        error: null,
      };
    } catch (error) {
      const message = controller.signal.aborted ? `timed out after ${this.options.timeoutMs} ms` : describeError(error);
      return { outcome: { kind: 'error', error: message }, statusCode: null, latencyMs: elapsed(), responseExcerpt: null, error: message };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }

  /** The answer's first KiB; the rest is not read (leaving the loop early closes the stream). */
  private async readExcerpt(stream: AsyncIterable<Buffer>): Promise<string | null> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of stream) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) break;
      }
    } catch (error) {
      // The status already arrived and decides the attempt; a body cut off is only noted in the excerpt.
      chunks.push(Buffer.from(`\n[answer cut off: ${describeError(error)}]`));
    }
    if (size === 0 && chunks.length === 0) return null;
    return printable(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'));
  }
}
