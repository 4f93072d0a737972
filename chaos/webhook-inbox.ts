// The merchant's webhook receiver in the fault suite: the tests' verifying receiver with one path per environment
// (`/webhooks/test`, `/webhooks/live`), each verified with its own endpoint's secret, so an event of one environment
// reaching the other's endpoint is rejected. Every verified arrival is kept, duplicates included, so the suite can
// tell a redelivery of one event (fine) from two different events for one change (a double).
import { TestWebhookReceiver } from '@payments/testing';

export type Environment = 'test' | 'live';

export class WebhookInbox {
  /** Each environment's endpoint secret. */
  readonly secrets: Record<Environment, string> = { test: '', live: '' };
  private readonly receiver = new TestWebhookReceiver({
    secretFor: (req) => this.secrets[environmentOf(req.url)],
    accept: (arrival) => arrival.webhook.event.environment === environmentOf(arrival.path),
  });

  get arrivals() {
    return this.receiver.arrivals;
  }

  get rejected(): number {
    return this.receiver.rejected;
  }

  /** Listens; answers the base address, to which an endpoint adds `/test` or `/live`. */
  listen(): Promise<string> {
    return this.receiver.listen();
  }

  /** Distinct succeeded event ids per intent. */
  succeededEvents(): Map<string, Set<string>> {
    return this.receiver.eventIdsByObject('payment_intent.succeeded');
  }

  /** Distinct refund.completed event ids per refund. */
  refundEvents(): Map<string, Set<string>> {
    return this.receiver.eventIdsByObject('refund.completed');
  }

  close(): Promise<void> {
    return this.receiver.close();
  }
}

function environmentOf(path: string | undefined): Environment {
  return path === '/webhooks/live' ? 'live' : 'test';
}
