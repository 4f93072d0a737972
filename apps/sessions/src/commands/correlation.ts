import { newRequestId } from '@payments/ids';
import type { RpcRequest } from '@payments/platform';

/** The request's correlation id; a command sent without one still gets one, so every event can be traced. */
export function correlationOf(request: RpcRequest): string {
  const id = request?.correlation_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : newRequestId();
}

/** Who sent a command: its correlation id, and its command id (deduplicates a command sent again). */
export interface CommandMeta {
  readonly correlationId: string;
  readonly commandId: string | undefined;
}
