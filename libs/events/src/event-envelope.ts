/** Where an event happened: merchants' live traffic or their test mode. */
export type Environment = 'live' | 'test';

/** The envelope every event on every topic travels in (DESIGN §4). JSON, snake_case like the public API. */
export interface EventEnvelope<TData = Record<string, unknown>> {
  /** `evt_` + 24 base62 characters; unique across all events. */
  id: string;
  type: string;
  schema_version: number;
  aggregate_id: string;
  aggregate_type: string;
  /** Version of the aggregate's stream this event produced (1 for the first event). */
  sequence: number;
  merchant_id: string;
  environment: Environment;
  /** ISO 8601, UTC (`Z`). */
  occurred_at: string;
  correlation_id: string;
  /** Id of the event or command that caused this one; null for events started by a request. */
  causation_id: string | null;
  data: TData;
}
