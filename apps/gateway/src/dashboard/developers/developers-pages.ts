import type { DeliveryList, DeliveryView } from '@payments/contracts';
import { html, type SafeHtml } from '../../checkout/page/html';
import { apiKeyStatus, KEY_ROLL_OVERLAPS, type KeyRollOverlap } from '../../merchants/api-key-lifetime';
import type { ApiKeyEntity } from '../../merchants/api-key.entity';
import { WEBHOOK_EVENT_TYPES } from '../../webhook-endpoints/create-webhook-endpoint.dto';
import type { WebhookEndpointResource } from '../../webhook-endpoints/webhook-endpoint.model';
import type { SignedInRequest } from '../session/dashboard-auth';
import { secretOnce } from '../web/components';
import { sectionPath } from '../web/layout';
import { csrfField } from '../web/respond';
import { EVENT_FIELD_PREFIX, mayManageDevelopers, SECRET_OVERLAP_HOURS, shownTime, type Notice } from './developer-forms';
import { developersText, type DevelopersKey } from './developers-messages';

type Vars = Record<string, string | number>;
const text = (page: SignedInRequest) => (key: DevelopersKey, vars?: Vars) => developersText(page.lang, key, vars);

export const developersPath = (page: SignedInRequest): string => sectionPath(page.environment, 'developers');
export const endpointPath = (page: SignedInRequest, id: string): string => `${developersPath(page)}/endpoints/${encodeURIComponent(id)}`;
const keyPath = (page: SignedInRequest, keyId: string): string => `${developersPath(page)}/keys/${encodeURIComponent(keyId)}`;

/** The shown part of a key: everything before the secret. */
export const keyPrefix = (key: Pick<ApiKeyEntity, 'environment' | 'keyId'>): string => `pay_${key.environment}_${key.keyId}`;

const time = (value: Date | string | null): SafeHtml | string =>
  value === null ? '' : html`<time datetime="${typeof value === 'string' ? value : value.toISOString()}">${shownTime(value)}</time>`;

/** A refusal of a service, next to the form it came from. */
export function refusal(page: SignedInRequest, message: string): SafeHtml {
  return html`<div class="banner error" role="alert" data-error>${text(page)('refused', { message })}</div>`;
}

export function noticeBanner(page: SignedInRequest, notice: Notice | null, count?: number): SafeHtml | null {
  if (notice === null) return null;
  const t = text(page);
  const message: Record<Notice, string> = {
    key_revoked: t('keyRevoked'),
    endpoint_deleted: t('endpointDeleted'),
    test_sent: t('testSent'),
    resent: t('resent'),
    enabled: t('enabled'),
    updated: t('endpointUpdated'),
    replayed: t('replayed', { count: count ?? 0 }),
  };
  return html`<div class="banner ok" role="status" data-notice="${notice}">${message[notice]}</div>`;
}

/** The keys' form values and error, kept when a form comes back. */
export interface OverviewForms {
  keyName?: string;
  keyError?: string;
  endpoint?: { url: string; events: string[] | null };
  endpointError?: string;
}

/** The developer page: keys and endpoints of the URL's environment. */
export function overviewPage(
  page: SignedInRequest,
  keys: ApiKeyEntity[],
  endpoints: WebhookEndpointResource[],
  forms: OverviewForms = {},
  notice: SafeHtml | null = null,
): SafeHtml {
  const t = text(page);
  const manage = mayManageDevelopers(page.user.role);
  const now = new Date();
  const keyRows = keys.map((key) => {
    const status = apiKeyStatus(key, now);
    const statusText =
      status === 'active' ? t('statusActive') : status === 'expiring' ? t('statusExpiring', { time: shownTime(key.expiresAt) }) : status === 'expired' ? t('statusExpired') : t('statusRevoked');
    const usable = status === 'active' || status === 'expiring';
    return html`<tr data-key="${key.keyId}"><td>${key.name ?? t('unnamed')}</td><td><code>${keyPrefix(key)}</code></td><td>${time(key.createdAt)}</td>
<td>${key.lastUsedAt ? time(key.lastUsedAt) : t('never')}</td><td><span class="status ${usable ? 'good' : 'bad'}" data-status="${status}">${statusText}</span></td>
${manage ? html`<td>${usable ? html`<a href="${keyPath(page, key.keyId)}/roll">${t('roll')}</a> · <a href="${keyPath(page, key.keyId)}/revoke">${t('revoke')}</a>` : ''}</td>` : null}</tr>`;
  });
  const liveLocked = page.environment === 'live' && page.user.merchant.verificationStatus !== 'verified';
  const createKey = !manage
    ? null
    : liveLocked
      ? html`<div class="banner info" data-live-locked>${t('liveKeysLocked')}</div>`
      : html`<form method="post" action="${developersPath(page)}/keys" class="card" data-form="create-key"><h3>${t('createKeyHeading')}</h3>${csrfField(page)}
${forms.keyError ? refusal(page, forms.keyError) : null}
<label for="key-name">${t('keyName')}</label><input id="key-name" name="name" required maxlength="100" value="${forms.keyName ?? ''}" aria-describedby="key-name-hint">
<p class="hint" id="key-name-hint">${t('keyNameHint')}</p><div class="actions"><button type="submit">${t('createKey')}</button></div></form>`;
  const endpointRows = endpoints.map(
    (endpoint) => html`<tr data-endpoint="${endpoint.id}"><td><a href="${endpointPath(page, endpoint.id)}">${endpoint.url}</a></td>
<td>${endpoint.events === null ? t('allEvents') : endpoint.events.join(', ')}</td>
<td><span class="status ${endpoint.status === 'enabled' ? 'good' : 'bad'}">${t(endpoint.status === 'enabled' ? 'endpointStatusEnabled' : 'endpointStatusDisabled')}</span></td><td>${time(endpoint.created_at)}</td></tr>`,
  );
  return html`<h1>${t('title')}</h1>${notice}${manage ? null : html`<div class="banner info" data-view-only>${t('viewOnly')}</div>`}
<h2>${t('keysHeading')}</h2><p class="hint">${t('keysIntro')}</p>
${keys.length === 0 ? html`<p>${t('noKeys')}</p>` : html`<div class="table-wrap" tabindex="0"><table data-table="keys"><thead><tr><th scope="col">${t('keyName')}</th><th scope="col">${t('keyId')}</th><th scope="col">${t('created')}</th><th scope="col">${t('lastUsed')}</th><th scope="col">${t('status')}</th>${manage ? html`<th scope="col">${t('actions')}</th>` : null}</tr></thead><tbody>${keyRows}</tbody></table></div>`}
${createKey}
<h2>${t('endpointsHeading')}</h2><p class="hint">${t('endpointsIntro')}</p>
${endpoints.length === 0 ? html`<p>${t('noEndpoints')}</p>` : html`<div class="table-wrap" tabindex="0"><table data-table="endpoints"><thead><tr><th scope="col">${t('url')}</th><th scope="col">${t('events')}</th><th scope="col">${t('status')}</th><th scope="col">${t('created')}</th></tr></thead><tbody>${endpointRows}</tbody></table></div>`}
${manage ? endpointSettingsForm(page, { action: `${developersPath(page)}/endpoints`, form: 'add-endpoint', level: 3, heading: 'addEndpointHeading', button: 'addEndpoint', values: forms.endpoint, error: forms.endpointError }) : null}`;
}

/** The address and event types of an endpoint, to add one or to change one (its current settings filled in). */
function endpointSettingsForm(
  page: SignedInRequest,
  form: { action: string; form: string; level: 2 | 3; heading: DevelopersKey; button: DevelopersKey; hint?: DevelopersKey; values?: { url: string; events: string[] | null }; error?: string },
): SafeHtml {
  const t = text(page);
  const chosen = form.values?.events ?? null;
  const checks = WEBHOOK_EVENT_TYPES.map((type, i) => {
    const id = `event-${i}`;
    return html`<label><input type="checkbox" id="${id}" name="${EVENT_FIELD_PREFIX}${type}"${chosen?.includes(type) ? html` checked` : null}> ${type}</label>`;
  });
  return html`<form method="post" action="${form.action}" class="card" data-form="${form.form}">${form.level === 2 ? html`<h2>${t(form.heading)}</h2>` : html`<h3>${t(form.heading)}</h3>`}${csrfField(page)}
${form.hint ? html`<p class="hint">${t(form.hint)}</p>` : null}${form.error ? refusal(page, form.error) : null}
<label for="endpoint-url">${t('url')}</label><input id="endpoint-url" name="url" type="url" required maxlength="2048" value="${form.values?.url ?? ''}" aria-describedby="endpoint-url-hint" placeholder="https://">
<p class="hint" id="endpoint-url-hint">${t('urlHint')}</p>
<fieldset><legend>${t('eventsLegend')}</legend>
<label><input type="radio" id="scope-all" name="scope" value="all"${chosen === null ? html` checked` : null}> ${t('eventsAll')}</label>
<label><input type="radio" id="scope-selected" name="scope" value="selected"${chosen !== null ? html` checked` : null}> ${t('eventsSelected')}</label>
${checks}</fieldset>
<div class="actions"><button type="submit">${t(form.button)}</button></div></form>`;
}

/** A secret's one showing (a new key, a new endpoint's or a rolled signing secret). */
export function secretPage(page: SignedInRequest, heading: DevelopersKey, intro: string, secret: string, back: string, extra: SafeHtml | null = null): SafeHtml {
  const t = text(page);
  return html`<h1>${t(heading)}</h1><div class="card"><p>${intro}</p>${secretOnce(page, 'secret', secret, t('copy'), t('copied'))}${extra}</div>
<p><a href="${back}">${t('back')}</a></p>`;
}

export function revokeKeyPage(page: SignedInRequest, key: ApiKeyEntity): SafeHtml {
  const t = text(page);
  return html`<h1>${t('revokeTitle', { key: key.name ?? keyPrefix(key) })}</h1><div class="card"><p><code>${keyPrefix(key)}</code></p><p>${t('revokeBody')}</p>
<form method="post" action="${keyPath(page, key.keyId)}/revoke" data-form="revoke-key">${csrfField(page)}<div class="actions"><button type="submit" class="danger">${t('revokeConfirm')}</button> <a class="button secondary" href="${developersPath(page)}">${t('cancel')}</a></div></form></div>`;
}

export function rollKeyPage(page: SignedInRequest, key: ApiKeyEntity, error?: string): SafeHtml {
  const t = text(page);
  const label: Record<KeyRollOverlap, DevelopersKey> = { now: 'overlapNow', '1h': 'overlap1h', '24h': 'overlap24h', '7d': 'overlap7d' };
  return html`<h1>${t('rollTitle', { key: key.name ?? keyPrefix(key) })}</h1>${error ? refusal(page, error) : null}<div class="card"><p><code>${keyPrefix(key)}</code></p><p>${t('rollBody')}</p>
<form method="post" action="${keyPath(page, key.keyId)}/roll" data-form="roll-key">${csrfField(page)}<fieldset><legend>${t('rollOverlap')}</legend>
${KEY_ROLL_OVERLAPS.map((overlap) => html`<label><input type="radio" id="overlap-${overlap}" name="overlap" value="${overlap}"${overlap === '24h' ? html` checked` : null}> ${t(label[overlap])}</label>`)}
</fieldset><div class="actions"><button type="submit">${t('rollConfirm')}</button> <a class="button secondary" href="${developersPath(page)}">${t('cancel')}</a></div></form></div>`;
}

export function deleteEndpointPage(page: SignedInRequest, endpoint: WebhookEndpointResource): SafeHtml {
  const t = text(page);
  return html`<h1>${t('deleteTitle', { url: endpoint.url })}</h1><div class="card"><p>${t('deleteBody')}</p>
<form method="post" action="${endpointPath(page, endpoint.id)}/delete" data-form="delete-endpoint">${csrfField(page)}<div class="actions"><button type="submit" class="danger">${t('deleteConfirm')}</button> <a class="button secondary" href="${endpointPath(page, endpoint.id)}">${t('cancel')}</a></div></form></div>`;
}

export interface EndpointView {
  endpoint: WebhookEndpointResource;
  /** null when the dispatcher did not answer. */
  deliveries: DeliveryList | null;
  startingAfter?: string;
  notice?: SafeHtml | null;
  error?: string;
  /** The change form as sent, and why it was refused (shown in that form). */
  settings?: { url: string; events: string[] | null };
  settingsError?: string;
  replay: { from: string; to: string };
}

/** One endpoint: its settings, actions and deliveries (newest first, paged). */
export function endpointPage(page: SignedInRequest, view: EndpointView): SafeHtml {
  const t = text(page);
  const { endpoint } = view;
  const manage = mayManageDevelopers(page.user.role);
  const base = endpointPath(page, endpoint.id);
  const disabled =
    endpoint.status === 'disabled'
      ? html`<div class="banner warn" data-disabled>${endpoint.disabled_reason === 'gone' ? t('disabledGone') : endpoint.disabled_reason === 'failing' ? t('disabledFailing') : t('endpointStatusDisabled')} ${endpoint.disabled_at ? t('disabledSince', { time: shownTime(endpoint.disabled_at) }) : null}</div>`
      : null;
  const actions = manage
    ? html`<div class="actions">
<form class="inline" method="post" action="${base}/test" data-form="test-event">${csrfField(page)}<button type="submit" class="secondary">${t('sendTest')}</button></form>
${endpoint.status === 'disabled' ? html`<form class="inline" method="post" action="${base}/enable" data-form="enable">${csrfField(page)}<button type="submit">${t('enable')}</button></form>` : null}
<a class="button secondary" href="${base}/delete">${t('delete')}</a></div>
${endpointSettingsForm(page, {
  action: `${base}/update`,
  form: 'update-endpoint',
  level: 2,
  heading: 'changeEndpointHeading',
  button: 'saveEndpoint',
  hint: 'changeEndpointHint',
  values: view.settings ?? { url: endpoint.url, events: endpoint.events },
  ...(view.settingsError ? { error: view.settingsError } : {}),
})}
<form method="post" action="${base}/roll-secret" class="card" data-form="roll-secret"><h2>${t('rollSecretHeading')}</h2>${csrfField(page)}<fieldset><legend>${t('rollSecretHours')}</legend>
${SECRET_OVERLAP_HOURS.map((hours) => html`<label><input type="radio" id="hours-${hours}" name="hours" value="${hours}"${hours === 24 ? html` checked` : null}> ${t(`secretOverlap${hours}`)}</label>`)}
</fieldset><div class="actions"><button type="submit">${t('rollSecret')}</button></div></form>
<form method="post" action="${base}/replay" class="card" data-form="replay"><h2>${t('replayHeading')}</h2>${csrfField(page)}<p class="hint">${t('replayHint')}</p>
<label for="replay-from">${t('replayFrom')}</label><input id="replay-from" name="from" type="datetime-local" required value="${view.replay.from}">
<label for="replay-to">${t('replayTo')}</label><input id="replay-to" name="to" type="datetime-local" required value="${view.replay.to}">
<div class="actions"><button type="submit">${t('replay')}</button></div></form>`
    : html`<div class="banner info" data-view-only>${t('viewOnly')}</div>`;
  return html`<p><a href="${developersPath(page)}">${t('back')}</a></p><h1>${t('endpointTitle')}</h1>${view.notice ?? null}${view.error ? refusal(page, view.error) : null}${disabled}
<div class="card"><dl class="fields"><dt>${t('url')}</dt><dd><code>${endpoint.url}</code></dd><dt>${t('events')}</dt><dd>${endpoint.events === null ? t('allEvents') : endpoint.events.join(', ')}</dd>
<dt>${t('status')}</dt><dd><span class="status ${endpoint.status === 'enabled' ? 'good' : 'bad'}" data-status="${endpoint.status}">${t(endpoint.status === 'enabled' ? 'endpointStatusEnabled' : 'endpointStatusDisabled')}</span></dd>
<dt>${t('created')}</dt><dd>${time(endpoint.created_at)}</dd></dl>
${endpoint.previous_secret_expires_at ? html`<p class="hint">${t('previousSecret', { time: shownTime(endpoint.previous_secret_expires_at) })}</p>` : null}</div>
${actions}
<h2>${t('deliveriesHeading')}</h2>${deliveriesList(page, view, manage)}`;
}

function deliveriesList(page: SignedInRequest, view: EndpointView, manage: boolean): SafeHtml {
  const t = text(page);
  if (view.deliveries === null) return html`<div class="banner warn">${t('deliveriesUnavailable')}</div>`;
  const base = endpointPath(page, view.endpoint.id);
  const list = view.deliveries.data;
  const last = list[list.length - 1];
  const paging = html`<div class="actions">${view.startingAfter ? html`<a href="${base}">${t('newerPage')}</a>` : null}${view.deliveries.has_more && last ? html`<a href="${base}?starting_after=${encodeURIComponent(last.id)}" data-next-page>${t('olderPage')}</a>` : null}</div>`;
  if (list.length === 0) return html`<p>${t('noDeliveries')}</p>${paging}`;
  return html`${list.map((delivery) => deliveryCard(page, base, delivery, manage))}${paging}`;
}

function deliveryCard(page: SignedInRequest, base: string, delivery: DeliveryView, manage: boolean): SafeHtml {
  const t = text(page);
  const status = t(delivery.status === 'succeeded' ? 'deliverySucceeded' : delivery.status === 'failed' ? 'deliveryFailed' : 'deliveryPending');
  const attempts = delivery.attempts.map(
    (attempt) => html`<tr><td>${time(attempt.attempted_at)}</td><td>${attempt.status_code ?? t('networkError')}</td><td class="num">${attempt.latency_ms === null ? '' : t('ms', { n: attempt.latency_ms })}</td>
<td><code>${(attempt.response_excerpt ?? attempt.error ?? '').slice(0, 300)}</code></td></tr>`,
  );
  return html`<section class="card" data-delivery="${delivery.id}"><h3>${t('delivery', { type: delivery.event_type, status })}</h3>
<p class="hint">${t('deliveryCreated', { time: shownTime(delivery.created_at), event: delivery.event_id })}${delivery.next_attempt_at ? html` · ${t('nextAttempt', { time: shownTime(delivery.next_attempt_at) })}` : null}</p>
${delivery.attempts.length === 0 ? html`<p>${t('noAttempts')}</p>` : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t('attemptTime')}</th><th scope="col">${t('attemptStatus')}</th><th scope="col">${t('attemptLatency')}</th><th scope="col">${t('attemptResponse')}</th></tr></thead><tbody>${attempts}</tbody></table></div>`}
${manage ? html`<form class="inline" method="post" action="${base}/deliveries/${encodeURIComponent(delivery.id)}/resend" data-form="resend">${csrfField(page)}<div class="actions"><button type="submit" class="secondary">${t('resend')}</button></div></form>` : null}</section>`;
}
