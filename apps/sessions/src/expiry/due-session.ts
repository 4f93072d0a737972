import type { StreamScope } from '../event-store/event-store';

/** An intent or invoice past expires_at that the expiry job has locked. */
export interface DueSession extends StreamScope {
  readonly id: string;
}
