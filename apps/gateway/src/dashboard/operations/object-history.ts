import type { DeliveryView } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import type { Environment } from '@payments/ids';

/** Injection tokens of the operations views' ports (event timelines; webhook deliveries). */
export const OBJECT_HISTORY = Symbol('OBJECT_HISTORY');
export const DELIVERY_SOURCE = Symbol('DELIVERY_SOURCE');

/** Whose object: the signed-in user's merchant and the URL's environment (every command is scoped by both). */
export interface OperationsScope {
  merchant_id: string;
  environment: Environment;
}

/** One event of an object's history, as its owner numbered it. */
export interface TimelineEvent {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
}

/**
 * An object's event timeline (intent, invoice, payment, refund). Null while the owners have no such command: the
 * page says so instead of showing an empty history.
 */
export interface ObjectHistory {
  timeline(scope: OperationsScope, objectId: string, caller: CommandOptions): Promise<TimelineEvent[] | null>;
}

/** No timeline command yet. */
export const NO_HISTORY: ObjectHistory = { timeline: async () => null };

/** The merchant's webhook endpoints of an environment and one page of each one's deliveries (the dispatcher's). */
export interface DeliverySource {
  endpointIds(scope: OperationsScope): Promise<string[]>;
  deliveries(scope: OperationsScope, endpointId: string, limit: number, caller: CommandOptions): Promise<DeliveryView[]>;
}

/** How many recent deliveries of each endpoint are searched for an object's events. */
export const DELIVERIES_SEARCHED = 100;

/**
 * The deliveries of an object's events: the dispatcher lists deliveries per endpoint, so the recent ones of every
 * endpoint of the environment are matched by event id (older deliveries are on the developer page).
 */
export async function deliveriesOf(source: DeliverySource, scope: OperationsScope, events: readonly TimelineEvent[], caller: CommandOptions): Promise<DeliveryView[]> {
  if (events.length === 0) return [];
  const ids = new Set(events.map((event) => event.id));
  const endpoints = await source.endpointIds(scope);
  const pages = await Promise.all(endpoints.map((id) => source.deliveries(scope, id, DELIVERIES_SEARCHED, caller)));
  return pages
    .flat()
    .filter((delivery) => ids.has(delivery.event_id))
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
}
