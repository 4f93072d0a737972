import { buildAsyncApiDocument } from './asyncapi.document';
import { eventTypes } from './event-catalogue';
import { EventTypeRegistry } from './event-type.registry';
import { PUBLIC_EVENT_TYPES } from './public-event-types';
import { STREAMS } from './topics';

/** Follows a local `$ref` (`#/a/b`) through the document. */
function resolve(doc: unknown, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else refsIn(value, found);
    }
  }
  return found;
}

describe('buildAsyncApiDocument', () => {
  const doc = buildAsyncApiDocument('payments');

  it('is an AsyncAPI 3.0 document with one channel and one send operation per stream', () => {
    expect(doc.asyncapi).toBe('3.0.0');
    expect(Object.values(doc.channels).map((c) => c.address)).toEqual(
      Object.values(STREAMS).map((s) => `payments.${s}.v1`),
    );
    for (const [id, operation] of Object.entries(doc.operations)) {
      expect(operation.action).toBe('send');
      expect(resolve(doc, operation.channel.$ref)).toBeDefined();
      expect(id).toMatch(/^publish\./);
    }
  });

  it('has a message for every public event type on the right channel', () => {
    for (const type of Object.keys(PUBLIC_EVENT_TYPES)) {
      const channel = type.startsWith('refund.') ? 'refunds.events' : 'sessions.events';
      expect(doc.channels[channel]!.messages[type]).toEqual({ $ref: `#/components/messages/${type}` });
      expect(doc.components.messages[type]!.tags).toEqual([{ name: 'public' }]);
    }
    expect(Object.keys(doc.channels['ledger.events']!.messages)).toEqual(['ledger.posting.created']);
    // The copies' channel carries the paid types only, as the same messages.
    expect(Object.keys(doc.channels['sessions.payments']!.messages).sort()).toEqual(['invoice.paid', 'payment_intent.succeeded']);
    expect(doc.channels['sessions.payments']!.address).toBe('payments.sessions.payments.v1');
    expect(doc.channels['sessions.payments']!.messages['invoice.paid']).toEqual({ $ref: '#/components/messages/invoice.paid' });
    expect(doc.components.messages['ledger.posting.created']!.tags).not.toEqual([{ name: 'public' }]);
  });

  it('describes each message as the envelope plus the registered data schema and version', () => {
    const message = doc.components.messages['refund.completed']!;
    expect(message.payload).toEqual({
      allOf: [
        { $ref: '#/components/schemas/EventEnvelope' },
        {
          type: 'object',
          properties: {
            type: { const: 'refund.completed' },
            schema_version: { const: 1 },
            data: eventTypes.get('refund.completed')!.dataSchema,
          },
        },
      ],
    });
    expect(doc.components.schemas.EventEnvelope).toMatchObject({ required: expect.arrayContaining(['id', 'data']) });
    expect(message.bindings.kafka.key).toMatchObject({ type: 'string' });
  });

  it("documents the W3C trace context in every message's headers, for consumers that join the publisher's trace", () => {
    for (const message of Object.values(doc.components.messages)) {
      const headers = message.headers as { properties: Record<string, { type: string; pattern?: string; description?: string }> };
      expect(headers.properties.traceparent).toMatchObject({ type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' });
      expect(headers.properties.traceparent!.description).toContain('W3C Trace Context');
      expect(headers.properties.tracestate).toMatchObject({ type: 'string' });
    }
    const { traceparent } = (doc.components.messages['refund.completed']!.headers as { properties: Record<string, { pattern: string }> }).properties;
    expect(new RegExp(traceparent!.pattern).test('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe(true);
  });

  it('has no dangling $ref', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(30);
    for (const ref of refs) expect(resolve(doc, ref)).toBeDefined();
  });

  it('follows the registry it is given, latest version of each type', () => {
    const registry = new EventTypeRegistry();
    registry.register('ledger.entry_posted', { version: 1, dataSchema: { type: 'object' }, stream: STREAMS.ledger });
    registry.register('ledger.entry_posted', {
      version: 2,
      dataSchema: { type: 'object', required: ['amount'] },
      stream: STREAMS.ledger,
    });
    registry.register('test.internal_only', { version: 1, dataSchema: { type: 'object' } });
    const custom = buildAsyncApiDocument('acme', registry);
    expect(custom.channels['ledger.events']!.address).toBe('acme.ledger.events.v1');
    expect(Object.keys(custom.components.messages)).toEqual(['ledger.entry_posted']);
    expect(JSON.stringify(custom.components.messages['ledger.entry_posted']!.payload)).toContain('"const":2');
    expect(custom.components.messages['ledger.entry_posted']!.tags).toEqual([{ name: 'internal' }]);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});
