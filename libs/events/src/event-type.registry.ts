import { registerGatewayEventTypes } from './gateway-event-types';
import { registerPublicEventTypes } from './public-event-types';
import { registerWebhookEventTypes } from './webhook-event-types';
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

const TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Event type -> schema versions. A type may hold several versions at once so consumers can read old and new
 * events during a migration; producers write the latest.
 */
export class EventTypeRegistry {
  private readonly types = new Map<string, Map<number, RegisteredEventType>>();

  register(type: string, definition: EventTypeDefinition): RegisteredEventType {
    if (!TYPE_PATTERN.test(type)) throw new Error(`invalid event type name "${type}" (expected e.g. refund.created)`);
    if (!Number.isInteger(definition.version) || definition.version < 1) {
      throw new Error(`event type ${type}: version must be an integer >= 1, got ${definition.version}`);
    }
    const versions = this.types.get(type) ?? new Map<number, RegisteredEventType>();
    const existing = versions.get(definition.version);
    const entry: RegisteredEventType = { ...definition, type };
    if (existing && JSON.stringify(existing) !== JSON.stringify(entry)) {
      throw new Error(`event type ${type} v${definition.version} is already registered with a different definition`);
    }
    versions.set(definition.version, existing ?? entry);
    this.types.set(type, versions);
    return existing ?? entry;
  }

  /** The definition of one version, or the latest one when `version` is omitted. */
  get(type: string, version?: number): RegisteredEventType | undefined {
    const versions = this.types.get(type);
    if (!versions) return undefined;
    if (version !== undefined) return versions.get(version);
    return versions.get(Math.max(...versions.keys()));
  }

  has(type: string): boolean {
    return this.types.has(type);
  }

  /** Version 1 of several internal types sharing one data schema and stream: `{type: description}`. */
  registerAll(descriptions: Record<string, string>, shared: Pick<EventTypeDefinition, 'dataSchema' | 'stream'>): void {
    for (const [type, description] of Object.entries(descriptions)) this.register(type, { version: 1, ...shared, description });
  }

  /** Latest version of every type, sorted by type name. */
  latest(): RegisteredEventType[] {
    return [...this.types.keys()].sort().map((type) => this.get(type)!);
  }
}

/** The process-wide registry: holds the public, gateway and webhook-dispatcher types from the start; services and tests add their own. */
export const eventTypes = new EventTypeRegistry();
registerPublicEventTypes(eventTypes);
registerGatewayEventTypes(eventTypes);
registerWebhookEventTypes(eventTypes);

export function registerEventType(type: string, definition: EventTypeDefinition): RegisteredEventType {
  return eventTypes.register(type, definition);
}
