// What an event type is: its name, data schema version and schema, and where it is published.
import type { StreamName } from './topics';

/** A JSON Schema object (draft-07) for an event's `data`. */
export type JsonSchema = Record<string, unknown>;

export interface EventTypeDefinition {
  /** `schema_version` this data schema describes (integer >= 1). */
  version: number;
  dataSchema: JsonSchema;
  /** Stream the type is published on; types without one stay out of the AsyncAPI document. */
  stream?: StreamName;
  /** Sent to merchants as a webhook. */
  public?: boolean;
  description?: string;
}

export interface RegisteredEventType extends EventTypeDefinition {
  type: string;
}

/** Version 1 of several types sharing one data schema and stream: `{type: description}` as definitions. */
export function sharedDefinitions(descriptions: Record<string, string>, shared: Pick<EventTypeDefinition, 'dataSchema' | 'stream'>): RegisteredEventType[] {
  return Object.entries(descriptions).map(([type, description]) => ({ type, version: 1, ...shared, description }));
}
