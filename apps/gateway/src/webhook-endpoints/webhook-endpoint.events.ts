import type { WebhookEndpointSnapshot } from '@payments/contracts';
import { newEnvelope, type EventEnvelope, type GatewayEventType } from '@payments/events';
import { snapshotOf, type WebhookEndpointState } from './webhook-endpoint.model';

export const WEBHOOK_ENDPOINT_AGGREGATE = 'webhook_endpoint';

/**
 * The event of one endpoint change, for the outbox: the snapshot after the change, sequence = its version,
 * so the dispatcher applies changes in order and ignores one it already has.
 */
export function webhookEndpointEvent(
  type: GatewayEventType,
  endpoint: WebhookEndpointState,
  correlationId: string,
): EventEnvelope<WebhookEndpointSnapshot> {
  return newEnvelope({
    type,
    aggregate_id: endpoint.id,
    aggregate_type: WEBHOOK_ENDPOINT_AGGREGATE,
    sequence: endpoint.version,
    merchant_id: endpoint.merchantId,
    environment: endpoint.environment,
    correlation_id: correlationId,
    occurred_at: endpoint.updatedAt,
    data: snapshotOf(endpoint),
  });
}
