// A merchant's webhook receiver: verifies each webhook (either signature scheme, 300 s tolerance, constant-time
// comparison), answers 400 when it does not verify and 200 when it does, and handles each event id once.
//
//   WEBHOOK_SECRET=whsec_... PORT=4242 node -r ./tools/swc-register.js examples/webhook-receiver/src/main.ts
//
// During a secret roll, give both secrets: WEBHOOK_SECRET=whsec_new,whsec_old.
import { createWebhookServer, MemoryEventIdStore, type VerifiedWebhook } from '@payments/webhook-receiver';

const secrets = (process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
if (secrets.length === 0 || secrets.some((s) => !s.startsWith('whsec_'))) {
  process.stderr.write('Set WEBHOOK_SECRET to the endpoint secret (whsec_...), shown when the endpoint was created.\n');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4242);

/** What the shop does with an event. Throwing answers 500, and the service sends the event again later. */
async function onEvent(webhook: VerifiedWebhook): Promise<void> {
  const event = webhook.event as { sequence?: number; data?: { object?: { id?: string; status?: string }; invoice_id?: string; status?: string } };
  const object = event.data?.object;
  const subject = object?.id ?? event.data?.invoice_id ?? '?';
  const status = object?.status ?? event.data?.status ?? '?';
  // Events of one object can arrive out of order: `sequence` tells which is newer.
  log({ received: webhook.type, event_id: webhook.id, scheme: webhook.scheme, object: subject, status, sequence: event.sequence ?? null });
  switch (webhook.type) {
    case 'invoice.paid':
    case 'payment_intent.succeeded':
      // Mark the order paid here (in the shop's own database, keyed by the event id to stay once-only).
      break;
    default:
      break;
  }
}

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
}

const server = createWebhookServer({
  secret: secrets,
  // One process keeps handled ids in memory; a shop with several processes keeps them in its database.
  store: new MemoryEventIdStore(),
  onEvent,
  onRejected: (reason, detail) => log({ rejected: reason, detail }),
});

server.listen(port, () => log({ listening: `http://localhost:${port}/` }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
