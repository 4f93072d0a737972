import type { CachedResourceKey } from './resource-cache';

const CACHED_AGGREGATES = new Set(['payment_intent', 'invoice']);

/**
 * The cached resources a sessions event changes. Creations change nothing cached (the create's own answer is
 * the first version); anything unreadable that still names an aggregate is invalidated anyway, since dropping
 * a cached resource is always safe.
 */
export function resourcesChangedBy(values: ReadonlyArray<Buffer | string | null>): CachedResourceKey[] {
  const keys = new Map<string, CachedResourceKey>();
  for (const value of values) {
    if (value === null) continue;
    let event: { type?: unknown; aggregate_type?: unknown; aggregate_id?: unknown; merchant_id?: unknown; environment?: unknown };
    try {
      event = JSON.parse(value.toString()) as typeof event;
    } catch {
      continue;
    }
    const { type, aggregate_type: aggregateType, aggregate_id: id, merchant_id: merchantId, environment } = event;
    if (typeof id !== 'string' || typeof merchantId !== 'string' || typeof environment !== 'string') continue;
    if (!CACHED_AGGREGATES.has(String(aggregateType)) || (typeof type === 'string' && type.endsWith('.created'))) continue;
    keys.set(`${merchantId}:${environment}:${id}`, { merchantId, environment, id });
  }
  return [...keys.values()];
}
