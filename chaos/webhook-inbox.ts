// The merchant's webhook receiver in the fault suite: verifies every request with the project's receiver library
// (400 on a failed check, 200 otherwise) and keeps every verified arrival, duplicates included, so the suite can
// tell a redelivery of one event (fine) from two different events for one change (a double). One path per
// environment (`/webhooks/test`, `/webhooks/live`), each verified with its own endpoint's secret, so an event of
// one environment reaching the other's endpoint is rejected.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRawBody, verifyWebhook } from '@payments/webhook-receiver';

export type Environment = 'test' | 'live';

export interface Arrival {
  environment: Environment;
  eventId: string;
  type: string;
  objectId: string;
  at: number;
}

export class WebhookInbox {
  readonly arrivals: Arrival[] = [];
  rejected = 0;
  /** Each environment's endpoint secret. */
  readonly secrets: Record<Environment, string> = { test: '', live: '' };
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const environment: Environment = req.url === '/webhooks/live' ? 'live' : 'test';
      void readRawBody(req).then((raw) => {
        const result = raw === null ? null : verifyWebhook(raw, req.headers, { secret: this.secrets[environment] });
        if (!result?.ok || result.webhook.event.environment !== environment) {
          this.rejected++;
          res.writeHead(400).end();
          return;
        }
        const { webhook } = result;
        const object = (webhook.event.data as { object?: { id?: string } } | undefined)?.object;
        this.arrivals.push({ environment, eventId: webhook.id, type: webhook.type, objectId: String(object?.id ?? ''), at: Date.now() });
        res.writeHead(200).end();
      });
    });
  }

  /** Listens; answers the base address, to which an endpoint adds `/test` or `/live`. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** Distinct succeeded event ids per intent. */
  succeededEvents(): Map<string, Set<string>> {
    return this.eventsOf('payment_intent.succeeded');
  }

  /** Distinct refund.completed event ids per refund. */
  refundEvents(): Map<string, Set<string>> {
    return this.eventsOf('refund.completed');
  }

  private eventsOf(type: string): Map<string, Set<string>> {
    const byObject = new Map<string, Set<string>>();
    for (const arrival of this.arrivals) {
      if (arrival.type !== type) continue;
      const ids = byObject.get(arrival.objectId) ?? new Set<string>();
      ids.add(arrival.eventId);
      byObject.set(arrival.objectId, ids);
    }
    return byObject;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
