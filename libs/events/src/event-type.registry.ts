import type { EventTypeDefinition, RegisteredEventType } from './event-type';

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

  /** A registry holding the given definitions. */
  static of(definitions: readonly RegisteredEventType[]): EventTypeRegistry {
    const registry = new EventTypeRegistry();
    for (const { type, ...definition } of definitions) registry.register(type, definition);
    return registry;
  }

  /** Latest version of every type, sorted by type name. */
  latest(): RegisteredEventType[] {
    return [...this.types.keys()].sort().map((type) => this.get(type)!);
  }
}
