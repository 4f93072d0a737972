// Every event type the services publish, in one registry built from the lists of each stream: what envelopes are
// validated against (on produce and consume) and what the AsyncAPI document describes. Tests add their own types.
import type { EventTypeDefinition, RegisteredEventType } from './event-type';
import { EventTypeRegistry } from './event-type.registry';
import { GATEWAY_EVENT_DEFINITIONS } from './gateway-event-types';
import { LEDGER_EVENT_DEFINITIONS } from './ledger-event-types';
import { PUBLIC_EVENT_DEFINITIONS } from './public-event-types';
import { WEBHOOK_EVENT_DEFINITIONS } from './webhook-event-types';

export const eventTypes = EventTypeRegistry.of([...PUBLIC_EVENT_DEFINITIONS, ...GATEWAY_EVENT_DEFINITIONS, ...WEBHOOK_EVENT_DEFINITIONS, ...LEDGER_EVENT_DEFINITIONS]);

/** Adds a type to the process-wide registry (tests and benchmarks with types of their own). */
export function registerEventType(type: string, definition: EventTypeDefinition): RegisteredEventType {
  return eventTypes.register(type, definition);
}
