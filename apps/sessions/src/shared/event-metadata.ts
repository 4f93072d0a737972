import type { EventMetadata, StreamScope } from '../event-store/event-store';

/** Metadata of events a request (or a job run, named by its correlation id) caused; the command, when one did. */
export function eventMetadata(scope: StreamScope, correlationId: string, commandId?: string): EventMetadata {
  const metadata: EventMetadata = { merchant_id: scope.merchantId, environment: scope.environment, correlation_id: correlationId, causation_id: commandId ?? null };
  return commandId ? { ...metadata, command_id: commandId } : metadata;
}
