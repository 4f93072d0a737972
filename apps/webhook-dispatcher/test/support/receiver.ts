// Merchant receivers on loopback, built with the receiver library the project ships (the reference behaviour:
// 400 on a failed check, 200 on success, each event id handled once), plus switches tests need: a forced
// status, an endpoint that never answers, a handler that fails.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler, MemoryEventIdStore, type VerifiedWebhook } from '@payments/webhook-receiver';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  /** Status answered (undefined while still open). */
  status?: number;
}

export interface HandledEvent {
  webhook: VerifiedWebhook;
  headers: IncomingHttpHeaders;
  /** The body as received (the dispatcher sends JSON.stringify output, so this is the raw text). */
  raw: string;
}

/** What to do with the n-th request (1-based) before the library sees it. */
export type Behaviour = (n: number, req: IncomingMessage) => 'receive' | 'hang' | { status: number; headers?: Record<string, string> };

export interface TestReceiver {
  url: string;
  /** Every request, in arrival order (also rejected and duplicate ones). */
  requests: ReceivedRequest[];
  /** Events the library accepted and handed over (once per id). */
  handled: HandledEvent[];
  /** Requests being answered right now. */
  open(): number;
  /** Most requests carrying the same event id that were open at once. */
  maxConcurrentPerEvent(): number;
  setBehaviour(behaviour: Behaviour): void;
  /** Make the handler fail (500) for the next n events. */
  failNext(n: number): void;
  close(): Promise<void>;
}

const eventIdOf = (headers: IncomingHttpHeaders): string | undefined => {
  const header = headers['service-event-id'];
  return typeof header === 'string' ? header : undefined;
};

export async function startReceiver(options: { secret: string | string[]; handlerDelayMs?: number; behaviour?: Behaviour }): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const handled: HandledEvent[] = [];
  let behaviour: Behaviour = options.behaviour ?? (() => 'receive');
  let failures = 0;
  let open = 0;
  const openPerEvent = new Map<string, number>();
  let maxPerEvent = 0;
  const hanging = new Set<ServerResponse>();

  const handler = createWebhookHandler({
    secret: options.secret,
    store: new MemoryEventIdStore(),
    onEvent: async (webhook, req) => {
      if (options.handlerDelayMs) await new Promise((resolve) => setTimeout(resolve, options.handlerDelayMs));
      if (failures > 0) {
        failures -= 1;
        throw new Error('receiver failing on purpose');
      }
      handled.push({ webhook, headers: req.headers, raw: JSON.stringify(webhook.event) });
    },
  });

  const server: Server = createServer((req, res) => {
    const record: ReceivedRequest = { headers: req.headers };
    requests.push(record);
    open += 1;
    // The intent scheme names the event only in the body; the test counts per body id through this key.
    const key = eventIdOf(req.headers) ?? `${req.headers['x-service-signature'] ?? ''}`;
    const perEvent = (openPerEvent.get(key) ?? 0) + 1;
    openPerEvent.set(key, perEvent);
    maxPerEvent = Math.max(maxPerEvent, perEvent);
    res.on('close', () => {
      open -= 1;
      openPerEvent.set(key, (openPerEvent.get(key) ?? 1) - 1);
      record.status = res.statusCode;
    });
    const action = behaviour(requests.length, req);
    if (action === 'hang') {
      hanging.add(res);
      req.resume();
      return;
    }
    if (action !== 'receive') {
      req.resume();
      res.writeHead(action.status, { 'content-type': 'text/plain', ...(action.headers ?? {}) });
      res.end(`answered ${action.status}`);
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    handled,
    open: () => open,
    maxConcurrentPerEvent: () => maxPerEvent,
    setBehaviour: (next) => {
      behaviour = next;
    },
    failNext: (n) => {
      failures = n;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
