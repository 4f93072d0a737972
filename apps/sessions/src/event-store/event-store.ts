import type { Environment } from '@payments/ids';
import { executePreparedIn, qualified, type SqlStatement } from '@payments/database';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { ConcurrencyError } from './concurrency.error';

/** Who an event belongs to and which request caused it; stored beside every event. */
export interface EventMetadata {
  readonly merchant_id: string;
  readonly environment: Environment;
  readonly correlation_id: string;
  readonly causation_id: string | null;
  /** The command that caused the event: a command sent again after its answer was lost is not acted on twice. */
  readonly command_id?: string;
}

/** An event as the aggregates produce it: a type and plain JSON data. */
export interface DomainEventData {
  readonly type: string;
  readonly data: unknown;
}

export interface StoredEvent<E extends DomainEventData = DomainEventData> {
  readonly position: string;
  readonly streamId: string;
  readonly version: number;
  readonly event: E;
  readonly metadata: EventMetadata;
  readonly occurredAt: Date;
}

export interface StreamScope {
  readonly merchantId: string;
  readonly environment: Environment;
}

const STREAM_VERSION_CONSTRAINT = 'events_stream_version_key';

/**
 * The append-only `events` table: one stream per aggregate (stream id = intent or invoice id), versions 1, 2, ...
 * Appending states the version the caller decided on; the unique (stream_id, version) key turns a concurrent
 * append into a ConcurrencyError instead of a second history.
 */
export class EventStore {
  private readonly table: string;

  constructor(schema: string) {
    this.table = qualified(schema, 'events');
  }

  /** Appends `events` as versions expectedVersion+1.. and returns the stream's new version. */
  async append(
    manager: EntityManager,
    streamId: string,
    expectedVersion: number,
    events: readonly DomainEventData[],
    metadata: EventMetadata,
    occurredAt: Date,
  ): Promise<number> {
    if (events.length === 0) return expectedVersion;
    const { text, params } = this.appendStatement(streamId, expectedVersion, events, metadata, occurredAt);
    try {
      await manager.query(text, params as unknown[]);
    } catch (error) {
      if (isStreamVersionClash(error)) throw new ConcurrencyError(streamId, expectedVersion);
      throw error;
    }
    return expectedVersion + events.length;
  }

  /** The append as a statement (for a write combined into one statement; a version clash is a unique violation). */
  appendStatement(
    streamId: string,
    expectedVersion: number,
    events: readonly DomainEventData[],
    metadata: EventMetadata,
    occurredAt: Date,
  ): SqlStatement {
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) throw new Error(`invalid expected version ${expectedVersion}`);
    if (events.length === 0) throw new Error('no events to append');
    const values: string[] = [];
    const params: unknown[] = [];
    events.forEach((event, index) => {
      const n = params.length;
      values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}::jsonb, $${n + 5}::jsonb, $${n + 6})`);
      params.push(streamId, expectedVersion + index + 1, event.type, JSON.stringify(event.data), JSON.stringify(metadata), occurredAt);
    });
    return { text: `INSERT INTO ${this.table} (stream_id, version, type, data, metadata, occurred_at) VALUES ${values.join(', ')}`, params };
  }

  /** The whole stream in version order; empty when it does not exist or belongs to another merchant/environment. */
  async load<E extends DomainEventData>(manager: EntityManager, scope: StreamScope, streamId: string): Promise<StoredEvent<E>[]> {
    // Prepared: read before every command on a session, and planning it cost Postgres more than running it.
    const rows = (await executePreparedIn(manager, {
      text: `SELECT position, stream_id, version, type, data, metadata, occurred_at FROM ${this.table}
       WHERE stream_id = $1 AND metadata->>'merchant_id' = $2 AND metadata->>'environment' = $3
       ORDER BY version`,
      params: [streamId, scope.merchantId, scope.environment],
    })) as Array<{
      position: string;
      stream_id: string;
      version: number;
      type: string;
      data: unknown;
      metadata: EventMetadata;
      occurred_at: Date;
    }>;
    return rows.map((row) => ({
      position: String(row.position),
      streamId: row.stream_id,
      version: row.version,
      event: { type: row.type, data: row.data } as E,
      metadata: row.metadata,
      occurredAt: row.occurred_at,
    }));
  }
}

/** Whether the command with this id already wrote events to the stream (its retry answers the current state). */
export function handledCommand(stream: readonly StoredEvent[], commandId: string | undefined): boolean {
  return commandId !== undefined && commandId.length > 0 && stream.some((stored) => stored.metadata.command_id === commandId);
}

/** An append at a (stream, version) another command took first: the caller's decision is stale. */
export function isStreamVersionClash(error: unknown): boolean {
  return isUniqueViolation(error, STREAM_VERSION_CONSTRAINT);
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (constraint === undefined || driverError.constraint === constraint);
}
