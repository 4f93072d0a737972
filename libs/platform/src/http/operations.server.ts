import { createServer, type IncomingMessage, type Server } from 'node:http';
import { metricsRegistry } from '../metrics/metrics';
import type { Readiness } from '../health/readiness';

/** A route of the operations port: a path pattern and what it answers (status and JSON body). */
export interface OperationsRoute {
  pattern: RegExp;
  answer(match: RegExpMatchArray, request: IncomingMessage): Promise<{ status: number; body: unknown }>;
}

/**
 * The operations port (OPS_PORT): Prometheus metrics, the probes with what is down and why, the event contract
 * (`/asyncapi.json`, for teams consuming the topics) and a service's diagnostics (the gateway's ping of the
 * command path). For operators and scrapers inside the cluster: neither the compose file nor any Kubernetes
 * Service publishes it, so none of it is reachable from the public port.
 */
export class OperationsServer {
  private readonly server: Server;

  constructor(
    private readonly readiness: Readiness,
    private readonly routes: OperationsRoute[] = [],
    /** The AsyncAPI document of the deployment's topics (their namespace filled in). */
    private readonly asyncApi?: unknown,
  ) {
    this.server = createServer((req, res) => {
      void this.answer(req).then(
        ({ status, body, contentType }) => {
          res.writeHead(status, { 'content-type': contentType ?? 'application/json' });
          res.end(typeof body === 'string' ? body : JSON.stringify(body));
        },
        () => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'internal_error', message: 'An internal error occurred.' } }));
        },
      );
    });
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '0.0.0.0', () => resolve());
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage): Promise<{ status: number; body: unknown; contentType?: string }> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET') return { status: 404, body: { error: { code: 'not_found', message: 'Not found' } } };
    if (path === '/metrics') return { status: 200, body: await metricsRegistry.metrics(), contentType: metricsRegistry.contentType };
    if (path === '/health/live') return { status: 200, body: { status: 'ok' } };
    if (path === '/asyncapi.json' && this.asyncApi !== undefined) return { status: 200, body: this.asyncApi };
    if (path === '/health/ready') {
      const { ready, details } = await this.readiness.check();
      return { status: ready ? 200 : 503, body: details };
    }
    for (const route of this.routes) {
      const match = path.match(route.pattern);
      if (match) return route.answer(match, req);
    }
    return { status: 404, body: { error: { code: 'not_found', message: `No route GET ${path}` } } };
  }
}
