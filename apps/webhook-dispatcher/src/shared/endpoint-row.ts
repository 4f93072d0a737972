/** An endpoint as stored by the dispatcher: the gateway's snapshot plus the dispatcher's own state. */
export interface EndpointRow {
  id: string;
  merchant_id: string;
  environment: 'live' | 'test';
  url: string;
  events: string[] | null;
  status: 'enabled' | 'disabled';
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  sequence: number;
  deleted_at: Date | null;
  /** Set when the dispatcher disabled it (410, or failing for 5 days); cleared by a newer enabled snapshot. */
  auto_disabled_at: Date | null;
  auto_disabled_reason: 'gone' | 'failing' | null;
  /** First failed attempt since the last success. */
  failing_since: Date | null;
  /** While inactive: from when to replay what was not delivered once it is enabled again. */
  inactive_since: Date | null;
  /** When it last began to take events it did not (enabled again, or types added); the catch-up sweep looks at recent ones. */
  widened_at: Date | null;
}

/**
 * Longer than any transaction that stores events: one that began this long before an endpoint changed state cannot
 * still be in flight. The replay at an enabling reaches back this far before the disabling (an event stamped before
 * it but stored after it), and the catch-up sweep this far before a widening (one stored while it was in flight).
 */
export const EVENT_TRANSACTION_MARGIN_MS = 60_000;

/** Deliveries go to an endpoint the merchant enabled, did not delete, and the dispatcher did not disable. */
export function isActive(endpoint: Pick<EndpointRow, 'status' | 'deleted_at' | 'auto_disabled_at'>): boolean {
  return endpoint.status === 'enabled' && endpoint.deleted_at === null && endpoint.auto_disabled_at === null;
}

/** SQL condition of isActive on an `endpoints` row aliased `alias`. */
export const activeEndpointSql = (alias: string) =>
  `${alias}.status = 'enabled' AND ${alias}.deleted_at IS NULL AND ${alias}.auto_disabled_at IS NULL`;
