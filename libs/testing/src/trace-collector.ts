import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as a test reads it: OTLP's fields, attributes flattened, with its service's name. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span (or one whose parent is a remote caller's). */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

/**
 * A tiny OTLP/HTTP receiver for tests: services started with `settings()` export their spans to it as JSON
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json, exported every 100 ms), and `spans` holds what arrived.
 */
export class TestTraceCollector {
  readonly spans: CollectedSpan[] = [];
  /** Spans received in all (kept in `spans` unless the collector only counts: a benchmark's sink). */
  received = 0;
  /** Requests to paths other than /v1/traces (nothing else should be exported). */
  readonly otherPaths: string[] = [];
  private server?: Server;
  private url = '';

  constructor(private readonly options: { keepSpans?: boolean } = {}) {}

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url !== '/v1/traces') this.otherPaths.push(req.url ?? '');
        else this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** The settings that make a service trace everything to this collector. */
  settings(ratio = '1'): Record<string, string> {
    return {
      OTEL_EXPORTER_OTLP_ENDPOINT: this.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER_ARG: ratio,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
  }

  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private take(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.received += 1;
          if (this.options.keepSpans === false) continue;
          this.spans.push({
            service: String(resource['service.name'] ?? ''),
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
            links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
          });
        }
      }
    }
  }
}

function flatten(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    flat[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue;
  }
  return flat;
}
