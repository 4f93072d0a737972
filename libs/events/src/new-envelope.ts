import type { Environment, EventEnvelope } from './event-envelope';
import { newEventId } from './event-id';
import { eventTypes } from './event-catalogue';
import type { EventTypeRegistry } from './event-type.registry';

export interface NewEnvelopeInput<TData> {
  type: string;
  aggregate_id: string;
  aggregate_type: string;
  sequence: number;
  merchant_id: string;
  environment: Environment;
  correlation_id: string;
  causation_id?: string | null;
  data: TData;
  /** Defaults to the latest registered version of `type`. */
  schema_version?: number;
  /** Defaults to a fresh `evt_` id. */
  id?: string;
  /** Defaults to now. */
  occurred_at?: Date | string;
}

/** Builds an envelope, filling id, occurred_at and schema_version. Validation happens when it is written. */
export function newEnvelope<TData>(
  input: NewEnvelopeInput<TData>,
  registry: EventTypeRegistry = eventTypes,
): EventEnvelope<TData> {
  const schemaVersion = input.schema_version ?? registry.get(input.type)?.version;
  if (schemaVersion === undefined) throw new Error(`unknown event type "${input.type}": register it first`);
  const occurredAt = input.occurred_at ?? new Date();
  return {
    id: input.id ?? newEventId(),
    type: input.type,
    schema_version: schemaVersion,
    aggregate_id: input.aggregate_id,
    aggregate_type: input.aggregate_type,
    sequence: input.sequence,
    merchant_id: input.merchant_id,
    environment: input.environment,
    occurred_at: typeof occurredAt === 'string' ? occurredAt : occurredAt.toISOString(),
    correlation_id: input.correlation_id,
    causation_id: input.causation_id ?? null,
    data: input.data,
  };
}
