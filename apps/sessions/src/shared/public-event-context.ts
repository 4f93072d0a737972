import type { EventMetadata } from '../event-store/event-store';

/** What rendering a public event needs besides the aggregate: checkout base, the change's time, its metadata. */
export interface PublicEventContext {
  readonly checkoutBaseUrl: string;
  readonly now: Date;
  readonly metadata: EventMetadata;
}
