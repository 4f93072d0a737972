import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { WebhooksTables1763900000000 } from './1763900000000-webhooks-tables.migration';
import { HeldDeliveries1763910000000 } from './1763910000000-held-deliveries.migration';
import { CommandResults1763920000000 } from './1763920000000-command-results.migration';
import { EndpointFirstSeen1763930000000 } from './1763930000000-endpoint-first-seen.migration';
import { HeldByEndpoint1763940000000 } from './1763940000000-held-by-endpoint.migration';
import { ObjectEvents1763950000000 } from './1763950000000-object-events.migration';
import { EventTraceContext1763960000000 } from './1763960000000-event-trace-context.migration';
import { DeliveryIdsInSql1763970000000 } from './1763970000000-delivery-ids-in-sql.migration';
import { EndpointWidened1763980000000 } from './1763980000000-endpoint-widened.migration';

/** Every migration of the webhooks schema, in order (the service runs them at boot; tests run the same list). */
export const WEBHOOKS_MIGRATIONS = [...MESSAGING_MIGRATIONS, WebhooksTables1763900000000, HeldDeliveries1763910000000, CommandResults1763920000000, EndpointFirstSeen1763930000000, HeldByEndpoint1763940000000, ObjectEvents1763950000000, EventTraceContext1763960000000, DeliveryIdsInSql1763970000000, EndpointWidened1763980000000];
