import type { ObjectDeliveryView, SessionEventView } from '@payments/contracts';
import type { CommandOptions } from '@payments/platform';
import type { Environment } from '@payments/ids';
import type { SessionsClient } from '../../sessions-client/sessions.client';
import type { WebhooksClient } from '../../webhook-endpoints/webhooks.client';

/** Injection token of the operations views' history port (event timelines and webhook deliveries). */
export const OBJECT_HISTORY = Symbol('OBJECT_HISTORY');

/** Whose object: the signed-in user's merchant and the URL's environment (every command is scoped by both). */
export interface OperationsScope {
  merchant_id: string;
  environment: Environment;
}

/**
 * An object's history: its events with their sequence (null where its owner keeps no timeline: refunds) and the
 * webhook deliveries of the events of one or more objects (a payment's are its intent's or invoice's and its
 * refunds').
 */
export interface ObjectHistory {
  timeline(scope: OperationsScope, objectId: string, caller: CommandOptions): Promise<SessionEventView[] | null>;
  deliveries(scope: OperationsScope, objectIds: readonly string[], caller: CommandOptions): Promise<ObjectDeliveryView[]>;
}

/** Deliveries shown per object (the newest; the developer page has every one). */
export const DELIVERIES_SHOWN = 50;

const SESSION_ID = /^(pi|inv)_/;

/** The history from the owners: sessions' timeline of an intent or invoice, the dispatcher's deliveries per object. */
export class OwnersHistory implements ObjectHistory {
  constructor(
    private readonly sessions: SessionsClient,
    private readonly webhooks: WebhooksClient,
  ) {}

  async timeline(scope: OperationsScope, objectId: string, caller: CommandOptions): Promise<SessionEventView[] | null> {
    if (!SESSION_ID.test(objectId)) return null;
    return (await this.sessions.listSessionEvents({ ...scope, id: objectId }, caller)).data;
  }

  async deliveries(scope: OperationsScope, objectIds: readonly string[], caller: CommandOptions): Promise<ObjectDeliveryView[]> {
    const lists = await Promise.all(objectIds.map((id) => this.webhooks.listObjectDeliveries({ ...scope, object_id: id, limit: DELIVERIES_SHOWN }, caller)));
    return newestFirst(lists.flatMap((list) => list.data)).slice(0, DELIVERIES_SHOWN);
  }
}

export function newestFirst<T extends { created_at: string; id: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}
