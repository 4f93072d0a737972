import { newRequestId } from '@payments/ids';
import type { RpcRequest } from '@payments/platform';

/** The request's correlation id; a command sent without one still gets one, so every event can be traced. */
export function correlationOf(request: RpcRequest): string {
  const id = request?.correlation_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : newRequestId();
}
