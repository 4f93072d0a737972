import { ApiError } from '@payments/platform';
import type { AuthContext } from '../auth/auth-context';
import { WEBHOOK_ENDPOINT_ID } from './webhook-endpoint.model';
import type { EndpointScope } from './webhook-endpoints.repository';

/** Whose endpoints a request sees: the key's merchant, in the key's environment only. */
export function scopeOf(auth: AuthContext): EndpointScope {
  return { merchantId: auth.merchantId, environment: auth.environment };
}

/** A path id that cannot be an endpoint's is not found, like one of another merchant or environment. */
export function requireEndpointId(id: string): string {
  if (!WEBHOOK_ENDPOINT_ID.test(id)) throw new ApiError('not_found', `No webhook endpoint ${id.slice(0, 80)}.`, 'id');
  return id;
}
