import type { CachedResourceKey } from './resource-cache';

const CACHED_AGGREGATES = new Set(['payment_intent', 'invoice']);

/** A sessions event as it came from Kafka: its key is the aggregate id. */
export interface SessionsMessage {
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
}

export interface Invalidation<M extends SessionsMessage = SessionsMessage> {
  /** The cached resources the messages changed (or may have). */
  readonly changed: Array<Pick<CachedResourceKey, 'id'>>;
  /** Messages that are not a readable event: dead-lettered and counted by the caller. */
  readonly malformed: M[];
}

/**
 * The cached resources a batch of sessions events changes. Creations change nothing cached (the create's own
 * answer is the first version). An event that cannot be read is reported as malformed and its resource (the
 * message key) dropped all the same: dropping a cached resource is always safe, keeping a stale one is not.
 */
export function resourcesChangedBy<M extends SessionsMessage>(messages: readonly M[]): Invalidation<M> {
  const changed = new Set<string>();
  const malformed: M[] = [];
  for (const message of messages) {
    const event = readEvent(message.value);
    if (event === null) {
      malformed.push(message);
      if (message.key !== null && message.key.length > 0) changed.add(message.key.toString());
      continue;
    }
    const { type, aggregate_type: aggregateType, aggregate_id: id } = event;
    if (!CACHED_AGGREGATES.has(String(aggregateType)) || (typeof type === 'string' && type.endsWith('.created'))) continue;
    changed.add(id);
  }
  return { changed: [...changed].map((id) => ({ id })), malformed };
}

/** The fields invalidation needs, or null when the value is not an event naming its aggregate. */
function readEvent(value: Buffer | string | null): { type?: unknown; aggregate_type?: unknown; aggregate_id: string } | null {
  if (value === null) return null;
  let event: unknown;
  try {
    event = JSON.parse(value.toString());
  } catch {
    // Not JSON: the caller dead-letters it (and drops the resource its key names).
    return null;
  }
  if (typeof event !== 'object' || event === null) return null;
  const { aggregate_id: id } = event as { aggregate_id?: unknown };
  return typeof id === 'string' && id.length > 0 ? (event as { aggregate_id: string }) : null;
}
