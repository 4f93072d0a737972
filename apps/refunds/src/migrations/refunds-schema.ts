import { MESSAGING_MIGRATIONS } from '@payments/messaging';
import { RefundsTables1764400000000 } from './1764400000000-refunds-tables.migration';
import { ProviderRefundChecks1764500000000 } from './1764500000000-provider-refund-checks.migration';
import { ListFilters1764630000000 } from './1764630000000-list-filters.migration';

/** Every migration of the refunds schema, in order (the service runs them at boot; tests run the same list). */
export const REFUNDS_MIGRATIONS = [...MESSAGING_MIGRATIONS, RefundsTables1764400000000, ProviderRefundChecks1764500000000, ListFilters1764630000000];
