// A merchant's webhook endpoint for tests: verifies every request with the project's receiver library (400 on a
// failed check, 200 otherwise) and keeps each verified arrival, duplicates included, so a test can tell a
// redelivery of one event from two events for one change.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRawBody, verifyWebhook, type VerifiedWebhook } from '@payments/webhook-receiver';

export interface WebhookArrival {
  /** The path it was sent to (e.g. `/webhooks/live`). */
  path: string;
  headers: IncomingHttpHeaders;
  webhook: VerifiedWebhook;
  /** Id of the object the event is about (`data.object.id`, or an invoice's `data.invoice_id`). */
  objectId: string;
  at: number;
}

export interface TestWebhookReceiverOptions {
  /**
   * The secret (or secrets) a request must be signed with; by default `receiver.secret`. A function picks by request,
   * e.g. one endpoint per environment on its own path.
   */
  secretFor?: (request: IncomingMessage) => string | string[];
  /** A further check of a verified webhook (e.g. its environment matches the path); false answers 400. */
  accept?: (arrival: WebhookArrival) => boolean;
}

export class TestWebhookReceiver {
  readonly arrivals: WebhookArrival[] = [];
  /** Requests refused: a failed signature check, or refused by `accept`. */
  rejected = 0;
  /** The endpoint's secret (from its create answer), when no `secretFor` is given. */
  secret = '';
  private readonly server: Server;

  constructor(options: TestWebhookReceiverOptions = {}) {
    this.server = createServer((req, res) => {
      void readRawBody(req).then((raw) => {
        const result = raw === null ? null : verifyWebhook(raw, req.headers, { secret: options.secretFor?.(req) ?? this.secret });
        const arrival = result?.ok ? arrivalOf(req, result.webhook) : null;
        if (arrival === null || (options.accept && !options.accept(arrival))) {
          this.rejected++;
          res.writeHead(400).end();
          return;
        }
        this.arrivals.push(arrival);
        res.writeHead(200).end();
      });
    });
  }

  /** Listens on loopback; answers the base address (`http://127.0.0.1:<port>/webhooks`), to which a path may be added. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** Distinct event ids per object, for the arrivals of one event type. */
  eventIdsByObject(type: string): Map<string, Set<string>> {
    const byObject = new Map<string, Set<string>>();
    for (const arrival of this.arrivals) {
      if (arrival.webhook.type !== type) continue;
      const ids = byObject.get(arrival.objectId) ?? new Set<string>();
      ids.add(arrival.webhook.id);
      byObject.set(arrival.objectId, ids);
    }
    return byObject;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function arrivalOf(req: IncomingMessage, webhook: VerifiedWebhook): WebhookArrival {
  const data = webhook.event.data as { object?: { id?: unknown }; invoice_id?: unknown } | undefined;
  return { path: req.url ?? '', headers: req.headers, webhook, objectId: String(data?.object?.id ?? data?.invoice_id ?? ''), at: Date.now() };
}
