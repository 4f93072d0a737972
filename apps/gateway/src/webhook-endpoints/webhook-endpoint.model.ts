import type { WebhookEndpointSnapshot } from '@payments/contracts';
import type { EndpointDisabledReason } from '@payments/events';
import { randomBase62, type Environment } from '@payments/ids';

/** `we_` + 24 base62 characters. */
export const WEBHOOK_ENDPOINT_ID = /^we_[A-Za-z0-9]{24}$/;

/** Enough for every environment and receiver a merchant runs, small enough to list without pages. */
export const MAX_ENDPOINTS_PER_ENVIRONMENT = 16;

/** How long the secret before a roll keeps signing (a second `v1=`), unless the roll asks for less. */
export const ROLL_OVERLAP_HOURS = 24;

export type WebhookEndpointStatus = 'enabled' | 'disabled' | 'deleted';

/** An endpoint as stored: secrets only ever encrypted. */
export interface WebhookEndpointState {
  id: string;
  merchantId: string;
  environment: Environment;
  url: string;
  /** Event types delivered; null = every public type. */
  events: string[] | null;
  status: WebhookEndpointStatus;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  /** 1 at creation, +1 per change: the `sequence` of the endpoint's events. */
  version: number;
  /** Set while the webhook-dispatcher keeps it disabled on its own (410, or failing for 5 days). */
  disabledReason: EndpointDisabledReason | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The public resource (spec: the secret is shown once, so never here). */
export interface WebhookEndpointResource {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: string[] | null;
  environment: Environment;
  status: 'enabled' | 'disabled';
  /** Why deliveries stopped: `gone` (it answered 410) or `failing` (no success for 5 days); null while enabled. */
  disabled_reason: EndpointDisabledReason | null;
  disabled_at: string | null;
  /** After a roll, when the previous secret stops signing; null when only one secret signs. */
  previous_secret_expires_at: string | null;
  created_at: string;
}

/** The create and roll answers: the one time the plaintext secret is shown. */
/** A create or roll answer: the secret, or null for a create replayed after its replay record expired. */
export type WebhookEndpointWithSecret = WebhookEndpointResource & { secret: string | null };

export function newWebhookEndpointId(): string {
  return `we_${randomBase62()}`;
}

export function newEndpoint(input: {
  merchantId: string;
  environment: Environment;
  url: string;
  events: string[] | null;
  secretEncrypted: string;
  now: Date;
}): WebhookEndpointState {
  return {
    id: newWebhookEndpointId(),
    merchantId: input.merchantId,
    environment: input.environment,
    url: input.url,
    events: input.events,
    status: 'enabled',
    secretEncrypted: input.secretEncrypted,
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
    version: 1,
    disabledReason: null,
    disabledAt: null,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/**
 * A new current secret; the one it replaces keeps signing for `overlapHours` (0 ends it now). A secret
 * rolled before from an earlier roll is dropped: at most two secrets sign at once.
 */
export function rollSecret(endpoint: WebhookEndpointState, secretEncrypted: string, overlapHours: number, now: Date): WebhookEndpointState {
  const overlap = overlapHours > 0;
  return {
    ...endpoint,
    secretEncrypted,
    previousSecretEncrypted: overlap ? endpoint.secretEncrypted : null,
    previousSecretExpiresAt: overlap ? new Date(now.getTime() + overlapHours * 3_600_000) : null,
    version: endpoint.version + 1,
    updatedAt: now,
  };
}

/** What a settings change may set: the address, the event types (null = every type), or both. */
export interface EndpointSettingsChange {
  url?: string;
  events?: string[] | null;
}

function sameTypes(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}

/** Whether the change sets anything the endpoint does not have (the same types in another order do not). */
export function changesSettings(endpoint: WebhookEndpointState, change: EndpointSettingsChange): boolean {
  return (change.url !== undefined && change.url !== endpoint.url) || (change.events !== undefined && !sameTypes(change.events, endpoint.events));
}

/** New settings: the secret, status and history stay; what is still to be delivered goes to the new address. */
export function changeSettings(endpoint: WebhookEndpointState, change: EndpointSettingsChange, now: Date): WebhookEndpointState {
  const events = change.events === undefined ? endpoint.events : change.events === null ? null : [...change.events];
  return { ...endpoint, url: change.url ?? endpoint.url, events, version: endpoint.version + 1, updatedAt: now };
}

/** Enabled again; the dispatcher replays what failed while it was disabled when it sees this version. */
export function enable(endpoint: WebhookEndpointState, now: Date): WebhookEndpointState {
  return { ...endpoint, status: 'enabled', disabledReason: null, disabledAt: null, version: endpoint.version + 1, updatedAt: now };
}

/**
 * The dispatcher disabled the endpoint at `actedOnVersion`. Shown only if the merchant changed nothing since:
 * a later change reached the dispatcher as a newer enabled snapshot, which lifted its disabling already.
 * Not a change of the merchant's settings, so no new version and nothing to publish. Null: nothing to apply.
 */
export function markDisabledByDispatcher(
  endpoint: WebhookEndpointState,
  actedOnVersion: number,
  reason: EndpointDisabledReason,
  at: Date,
): WebhookEndpointState | null {
  if (endpoint.status !== 'enabled' || endpoint.version !== actedOnVersion) return null;
  return { ...endpoint, status: 'disabled', disabledReason: reason, disabledAt: at };
}

export function markDeleted(endpoint: WebhookEndpointState, now: Date): WebhookEndpointState {
  return { ...endpoint, status: 'deleted', version: endpoint.version + 1, updatedAt: now };
}

/** The previous secret's expiry while it still signs, else null. */
function activePreviousExpiry(endpoint: WebhookEndpointState, now: Date): Date | null {
  const expiresAt = endpoint.previousSecretExpiresAt;
  return endpoint.previousSecretEncrypted !== null && expiresAt !== null && expiresAt > now ? expiresAt : null;
}

export function resourceOf(endpoint: WebhookEndpointState, now: Date = new Date()): WebhookEndpointResource {
  if (endpoint.status === 'deleted') throw new Error(`webhook endpoint ${endpoint.id} is deleted and has no resource`);
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    events: endpoint.events === null ? null : [...endpoint.events],
    environment: endpoint.environment,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    previous_secret_expires_at: activePreviousExpiry(endpoint, now)?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
  };
}

/** What the dispatcher keeps (WebhookEndpointSnapshot); a deleted endpoint travels as disabled. */
export function snapshotOf(endpoint: WebhookEndpointState): WebhookEndpointSnapshot {
  return {
    id: endpoint.id,
    merchant_id: endpoint.merchantId,
    environment: endpoint.environment,
    url: endpoint.url,
    events: endpoint.events === null ? null : [...endpoint.events],
    status: endpoint.status === 'enabled' ? 'enabled' : 'disabled',
    secret_encrypted: endpoint.secretEncrypted,
    previous_secret_encrypted: endpoint.previousSecretEncrypted,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
