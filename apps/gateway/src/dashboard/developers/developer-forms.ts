import { can } from '../../accounts/roles';
import type { Role } from '../session/dashboard-auth';

// What the developer page's forms mean, as plain values for the services: no framework, unit-tested.

type Form = Record<string, unknown> | undefined;

/** A text field as sent (never an array or object), cut to `max`. */
export function field(form: Form, name: string, max = 2048): string {
  const value = form?.[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** Who may create, revoke and roll keys and change webhook endpoints (the accounts' roles): owner and developer; a viewer only looks. */
export function mayManageDevelopers(role: Role): boolean {
  return can(role, 'manage_keys') && can(role, 'manage_webhooks');
}

/** The checkbox of one event type (a field per type: the form parser keeps one value per name). */
export const EVENT_FIELD_PREFIX = 'event:';

/**
 * The add-endpoint form as the API's create body: `events` null for "every type", else every checked type as
 * sent (unknown ones included, so the API's own validation refuses them with its message).
 */
export function endpointBody(form: Form): { url: string; events: string[] | null } {
  const url = field(form, 'url').trim();
  if (field(form, 'scope') !== 'selected') return { url, events: null };
  const events = Object.keys(form ?? {})
    .filter((name) => name.startsWith(EVENT_FIELD_PREFIX))
    .map((name) => name.slice(EVENT_FIELD_PREFIX.length));
  return { url, events };
}

/** Hours the previous webhook secret keeps signing, offered on the page (the API accepts 0 to 24). */
export const SECRET_OVERLAP_HOURS = [0, 1, 24] as const;

/** The roll-secret form as the API's body: a whole number when it is one, else as sent (the API refuses it). */
export function rollSecretBody(form: Form): { expires_in_hours?: unknown } {
  const hours = field(form, 'hours', 10);
  if (hours === '') return {};
  return { expires_in_hours: /^\d{1,3}$/.test(hours) ? Number(hours) : hours };
}

const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/**
 * A `datetime-local` value read as UTC (the page says so), in the API's form with a zone; anything else is left as
 * sent for the API's validation to refuse.
 */
export function utcDateTime(value: string): string {
  return LOCAL_MINUTE.test(value) ? `${value}${value.length === 16 ? ':00' : ''}Z` : value;
}

/** A `datetime-local` value (UTC, to the minute) of a time. */
export function dateTimeLocal(time: Date): string {
  return time.toISOString().slice(0, 16);
}

/** The replay form as the API's body. */
export function replayBody(form: Form): { from: string; to: string } {
  return { from: utcDateTime(field(form, 'from', 64).trim()), to: utcDateTime(field(form, 'to', 64).trim()) };
}

/** What the page says after an action that redirected back to it (post/redirect/get): only these. */
export const NOTICES = ['key_revoked', 'endpoint_deleted', 'test_sent', 'resent', 'enabled', 'updated', 'replayed'] as const;
export type Notice = (typeof NOTICES)[number];

export function noticeOf(value: unknown): Notice | null {
  return typeof value === 'string' && (NOTICES as readonly string[]).includes(value) ? (value as Notice) : null;
}

/** A shown time: UTC to the second, the same in both languages. */
export function shownTime(time: Date | string | null): string {
  if (time === null) return '';
  const date = typeof time === 'string' ? new Date(time) : time;
  return Number.isNaN(date.getTime()) ? '' : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
