// The operations views' markup: lists with their filter form, search box, paging and export link; object pages
// with their fields, events, deliveries and refunds; the refund form and its confirmation. Money is shown as the
// MoneyString the owner gave, right-aligned; nothing is computed in floating point.
import type { ObjectDeliveryView, PaymentIntentResource, RefundResource, SessionEventView } from '@payments/contracts';
import type { Environment } from '@payments/ids';
import { html, type SafeHtml } from '../../checkout/page/html';
import type { SignedInRequest } from '../session/dashboard-auth';
import { csrfField } from '../web/respond';
import { CSV_MAX_ROWS } from './csv';
import { exportLink, type FilterName, type FilterProblem, type ListRequest, type ListShape, type PagingLinks } from './list-query';
import type { Column, ListSection } from './operations-lists';
import { operationsText, type OperationsKey } from './operations-messages';
import type { RefundForm, RefundProblem } from './refund-action';

export type Text = (key: OperationsKey, vars?: Record<string, string | number>) => string;

export function textFor(page: Pick<SignedInRequest, 'lang'>): Text {
  return (key, vars) => operationsText(page.lang, key, vars);
}

const GOOD = new Set(['succeeded', 'paid', 'completed', 'enabled']);
const BAD = new Set(['failed', 'cancelled', 'expired', 'refunded', 'disabled']);

/** A heading naming an object: its id in `code`, which may break anywhere (a long id never widens a phone's page). */
export function titleWithId(t: Text, key: OperationsKey, id: string): SafeHtml {
  const [before = '', after = ''] = t(key, { id: '\u0000' }).split('\u0000');
  return html`<h1>${before}<code dir="ltr">${id}</code>${after}</h1>`;
}

export function statusBadge(status: string): SafeHtml {
  const tone = GOOD.has(status) ? 'good' : BAD.has(status) ? 'bad' : 'wait';
  return html`<span class="status ${tone}">${status}</span>`;
}

/** A MoneyString as given, with its currency; `dir=ltr` keeps a minus sign before the digits in Arabic too. */
export function money(amount: string, currency = 'USD'): SafeHtml {
  return html`<span dir="ltr">${amount} ${currency}</span>`;
}

export function when(iso: string | null): SafeHtml | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}" dir="ltr">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

export function objectPath(environment: Environment, section: ListSection, id: string): string {
  return `/dashboard/${environment}/${section}/${encodeURIComponent(id)}`;
}

/** The search box: an id goes to its object's page. */
export function searchForm(page: SignedInRequest, section: ListSection, t: Text): SafeHtml {
  return html`<form class="card" method="get" action="/dashboard/${page.environment}/search" role="search">
<label for="search-id">${t('searchLabel')}</label><input id="search-id" name="id" type="search" required maxlength="200" autocomplete="off" dir="ltr" aria-describedby="search-hint">
<p class="hint" id="search-hint">${t('searchHint')}</p>
<div class="actions"><button type="submit" class="secondary">${t('searchButton')}</button></div><input type="hidden" name="from" value="${section}"></form>`;
}

const PROBLEM_TEXT: Record<FilterProblem['problem'], OperationsKey> = {
  choice: 'problemChoice',
  date: 'problemDate',
  range: 'problemRange',
  amount: 'problemAmount',
  text: 'problemText',
  id: 'problemId',
};

const FILTER_LABEL: Record<FilterName, OperationsKey> = {
  status: 'filterStatus',
  type: 'filterType',
  from: 'filterFrom',
  to: 'filterTo',
  external_ref: 'filterExternalRef',
  amount_min: 'filterAmountMin',
  amount_max: 'filterAmountMax',
  payment_id: 'filterPaymentId',
};

/** The filter form of a list: the fields its command takes, filled from the query; a value ignored says why. */
export function filterForm(path: string, shape: ListShape, request: ListRequest, query: Record<string, unknown>, t: Text): SafeHtml | null {
  if (shape.filters.length === 0) return null;
  const raw = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
  const field = (name: FilterName): SafeHtml => {
    const id = `filter-${name}`;
    const problem = request.problems.find((p) => p.field === name);
    const described = problem ? html` aria-invalid="true" aria-describedby="${id}-problem"` : '';
    const note = problem ? html`<p class="hint" id="${id}-problem">${t(PROBLEM_TEXT[problem.problem])}</p>` : null;
    const value = request.filters[name] ?? raw(name);
    const label = html`<label for="${id}">${t(FILTER_LABEL[name])}</label>`;
    if (name === 'status' || name === 'type') {
      return html`<div>${label}<select id="${id}" name="${name}"${described}><option value="">${t('filterAny')}</option>${(shape.choices ?? []).map(
        (choice) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${choice}</option>`,
      )}</select>${note}</div>`;
    }
    const type = name === 'from' || name === 'to' ? 'date' : 'text';
    const mode = name === 'amount_min' || name === 'amount_max' ? html` inputmode="decimal"` : '';
    return html`<div>${label}<input id="${id}" name="${name}" type="${type}" value="${value}" maxlength="120" dir="ltr"${mode}${described}>${note}</div>`;
  };
  return html`<form class="card" method="get" action="${path}" aria-labelledby="filters-heading">
<h2 id="filters-heading">${t('filtersHeading')}</h2>${shape.filters.map(field)}
<div class="actions"><button type="submit">${t('filterApply')}</button><a class="button secondary" href="${path}">${t('filterClear')}</a></div></form>`;
}

function cell<T>(column: Column<T>, item: T, environment: Environment, section: ListSection): SafeHtml {
  const value = column.value(item);
  if (value === null || value === '') return html`<td>—</td>`;
  switch (column.kind) {
    case 'id':
      return html`<td><a href="${objectPath(environment, section, value)}" dir="ltr">${value}</a></td>`;
    case 'money':
      return html`<td class="num">${money(value)}</td>`;
    case 'status':
      return html`<td>${statusBadge(value)}</td>`;
    case 'date':
      return html`<td>${when(value)}</td>`;
    default:
      return html`<td>${value}</td>`;
  }
}

/** A table's wrapper that scrolls on a narrow screen: a named region keyboard users can focus and scroll. */
export function scrollable(label: string): SafeHtml {
  return html`tabindex="0" role="region" aria-label="${label}"`;
}

/** A table of rows inside a scrolling wrapper (narrow screens scroll the table, not the page). */
export function table<T>(caption: string, columns: Column<T>[], rows: T[], environment: Environment, section: ListSection, t: Text): SafeHtml {
  return html`<div class="table-wrap" ${scrollable(caption)}><table><thead><tr>${columns.map(
    (column) => html`<th scope="col"${column.kind === 'money' ? html` class="num"` : ''}>${t(column.label)}</th>`,
  )}</tr></thead><tbody>${rows.map((row) => html`<tr>${columns.map((column) => cell(column, row, environment, section))}</tr>`)}</tbody></table></div>`;
}

export function pagingNav(links: PagingLinks, t: Text): SafeHtml | null {
  if (!links.next && !links.previous && !links.first) return null;
  return html`<nav class="actions" aria-label="${t('pagingLabel')}">${links.first ? html`<a class="button secondary" href="${links.first}">${t('firstPage')}</a>` : null}${
    links.previous ? html`<a class="button secondary" href="${links.previous}" rel="prev">${t('previousPage')}</a>` : null
  }${links.next ? html`<a class="button secondary" href="${links.next}" rel="next">${t('nextPage')}</a>` : null}</nav>`;
}

export function exportAction(path: string, request: ListRequest, t: Text): SafeHtml {
  return html`<div class="actions"><a class="button secondary" href="${exportLink(path, request.filters)}" download>${t('exportCsv')}</a></div><p class="hint">${t('exportHint', { max: CSV_MAX_ROWS })}</p>`;
}

export function emptyList(request: ListRequest, t: Text): SafeHtml {
  return html`<div class="card"><p>${t(Object.keys(request.filters).length > 0 ? 'emptyFiltered' : 'empty')}</p></div>`;
}

/** An object's fields as a definition list (values are plain text or prepared markup). */
export function fields(t: Text, rows: Array<[OperationsKey, SafeHtml | string | null]>): SafeHtml {
  return html`<h2>${t('fieldsHeading')}</h2><div class="card"><dl class="fields">${rows.map(
    ([label, value]) => html`<dt>${t(label)}</dt><dd>${value === null || value === '' ? t('none') : value}</dd>`,
  )}</dl></div>`;
}

/**
 * A crypto payment's own facts on the intent's page, once the customer chose crypto or a transfer arrived: the
 * deposit address, what was received and is still due, any overpayment (the merchant settles it with the
 * customer) and the transfer(s) by txid. Nothing for other methods.
 */
export function cryptoFields(intent: Pick<PaymentIntentResource, 'crypto' | 'currency' | 'payment_method'>): Array<[OperationsKey, SafeHtml | string | null]> {
  const c = intent.crypto;
  if (intent.payment_method !== 'crypto' && !c.address && c.received_amount === '0.00') return [];
  return [
    ['fieldCryptoAddress', c.address ? html`<code dir="ltr">${c.address}</code>` : null],
    ['fieldCryptoReceived', money(c.received_amount, intent.currency)],
    ['fieldCryptoRemaining', money(c.remaining_amount, intent.currency)],
    ['fieldCryptoOverpayment', c.overpayment_amount !== '0.00' ? html`<strong data-overpayment>${money(c.overpayment_amount, intent.currency)}</strong>` : money(c.overpayment_amount, intent.currency)],
    ['fieldTxid', c.txid ? html`<code dir="ltr" data-txid>${c.txid}</code>` : null],
  ];
}

/** The events of an object in their order, each with its sequence (the `sequence` its webhook carries). */
export function timelineSection(events: SessionEventView[] | null, t: Text): SafeHtml {
  const body =
    events === null
      ? html`<div class="card"><p>${t('timelineUnavailable')}</p></div>`
      : events.length === 0
        ? html`<div class="card"><p>${t('timelineEmpty')}</p></div>`
        : html`<div class="table-wrap" ${scrollable(t('timelineHeading'))}><table data-timeline><thead><tr><th scope="col" class="num">${t('timelineSequence')}</th><th scope="col">${t('timelineType')}</th><th scope="col">${t('timelineAt')}</th></tr></thead><tbody>${[...events]
            .sort((a, b) => a.sequence - b.sequence)
            .map((event) => html`<tr><td class="num">${event.sequence}</td><td><code>${event.type ?? event.name}</code></td><td>${when(event.occurred_at)}</td></tr>`)}</tbody></table></div>`;
  return html`<h2>${t('timelineHeading')}</h2>${body}`;
}

/** The webhook deliveries of the object's events, with each one's endpoint and attempts. */
export function deliveriesSection(deliveries: ObjectDeliveryView[], t: Text): SafeHtml {
  const body =
    deliveries.length === 0
      ? html`<div class="card"><p>${t('deliveriesEmpty')}</p></div>`
      : html`<div class="table-wrap" ${scrollable(t('deliveriesHeading'))}><table data-deliveries><thead><tr><th scope="col">${t('colId')}</th><th scope="col">${t('timelineType')}</th><th scope="col" class="num">${t('timelineSequence')}</th><th scope="col">${t('deliveryEndpoint')}</th><th scope="col">${t('colStatus')}</th><th scope="col" class="num">${t('deliveryAttempts')}</th><th scope="col">${t('colCreated')}</th></tr></thead><tbody>${deliveries.map(
          (d) =>
            html`<tr><td><code>${d.id}</code></td><td><code>${d.event_type}</code></td><td class="num">${d.event_sequence}</td><td dir="ltr">${d.endpoint_url}</td><td>${statusBadge(d.status)}</td><td class="num">${d.attempt_count}</td><td>${when(d.created_at)}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<h2>${t('deliveriesHeading')}</h2>${body}`;
}

export function refundsTable(environment: Environment, refunds: RefundResource[], t: Text): SafeHtml {
  if (refunds.length === 0) return html`<h2>${t('refundsHeading')}</h2><div class="card"><p>${t('refundsEmpty')}</p></div>`;
  const columns: Column<RefundResource>[] = [
    { label: 'colId', value: (r) => r.id, kind: 'id' },
    { label: 'colAmount', value: (r) => r.amount, kind: 'money' },
    { label: 'colStatus', value: (r) => r.status, kind: 'status' },
    { label: 'colReason', value: (r) => r.reason },
    { label: 'colCreated', value: (r) => r.created_at, kind: 'date' },
  ];
  return html`<h2>${t('refundsHeading')}</h2>${table(t('refundsHeading'), columns, refunds, environment, 'refunds', t)}`;
}

function problemBanner(problem: RefundProblem | undefined, t: Text): SafeHtml | null {
  if (!problem) return null;
  return html`<div class="banner error" role="alert" data-refund-problem>${'key' in problem ? t(problem.key) : problem.text}</div>`;
}

/** The refund form (step 1): full or partial, the key made now so that a double submit is one refund. */
export function refundFormPage(page: SignedInRequest, paymentId: string, amount: string, refundable: string, form: RefundForm, t: Text, problem?: RefundProblem): SafeHtml {
  const action = `${objectPath(page.environment, 'payments', paymentId)}/refund`;
  const partial = form.mode === 'partial';
  return html`${titleWithId(t, 'refundFormTitle', paymentId)}${problemBanner(problem, t)}
<form class="card" method="post" action="${action}"><p>${t('refundRemaining', { amount: refundable, total: amount })}</p>
<fieldset><legend>${t('refundFormTitle', { id: paymentId })}</legend>
<label><input type="radio" name="mode" value="full"${partial ? '' : html` checked`}> ${t('refundFull', { amount: refundable })}</label>
<label><input type="radio" name="mode" value="partial"${partial ? html` checked` : ''}> ${t('refundPartial')}</label></fieldset>
<label for="refund-amount">${t('refundAmountLabel')}</label><input id="refund-amount" name="amount" inputmode="decimal" dir="ltr" maxlength="12" value="${form.amount ?? ''}" aria-describedby="refund-amount-hint">
<p class="hint" id="refund-amount-hint">${t('refundAmountHint')}</p>
<label for="refund-reason">${t('refundReasonLabel')}</label><input id="refund-reason" name="reason" maxlength="500" value="${form.reason ?? ''}">
<div class="actions"><button type="submit">${t('refundReview')}</button><a class="button secondary" href="${objectPath(page.environment, 'payments', paymentId)}">${t('refundCancel')}</a></div>
${csrfField(page)}<input type="hidden" name="idempotency_key" value="${form.key}"><input type="hidden" name="step" value="review"></form>`;
}

/** The confirmation (step 2): what will be refunded; the same key goes on to the refund. */
export function refundConfirmPage(page: SignedInRequest, paymentId: string, refundable: string, form: RefundForm, t: Text): SafeHtml {
  const action = `${objectPath(page.environment, 'payments', paymentId)}/refund`;
  const hidden = html`${csrfField(page)}<input type="hidden" name="idempotency_key" value="${form.key}"><input type="hidden" name="mode" value="${form.mode}">${
    form.amount ? html`<input type="hidden" name="amount" value="${form.amount}">` : null
  }${form.reason ? html`<input type="hidden" name="reason" value="${form.reason}">` : null}`;
  const question = form.mode === 'partial' && form.amount ? t('refundConfirmBody', { amount: form.amount, id: paymentId }) : t('refundConfirmFull', { amount: refundable, id: paymentId });
  return html`<h1>${t('refundConfirmTitle')}</h1><div class="card"><p data-refund-confirm>${question}</p>
<div class="actions"><form class="inline" method="post" action="${action}">${hidden}<input type="hidden" name="step" value="confirm"><button type="submit" class="danger">${t('refundConfirmButton')}</button></form>
<form class="inline" method="post" action="${action}">${hidden}<input type="hidden" name="step" value="change"><button type="submit" class="secondary">${t('refundChange')}</button></form>
<a class="button secondary" href="${objectPath(page.environment, 'payments', paymentId)}">${t('refundCancel')}</a></div></div>`;
}
