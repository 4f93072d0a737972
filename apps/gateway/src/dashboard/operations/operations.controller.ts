import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { PaymentResource } from '@payments/contracts';
import { ApiError, type CommandOptions } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../checkout/page/html';
import { RefundsClient } from '../../refunds/refunds.client';
import { SessionsClient } from '../../sessions-client/sessions.client';
import { DashboardAuth, FormRefused, type SignedInRequest } from '../session/dashboard-auth';
import { DashboardExceptionFilter, RoleForbidden } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { csvFileName, csvLines } from './csv';
import { sendCsv } from './csv-response';
import { parseListQuery, pagingLinks } from './list-query';
import { OBJECT_HISTORY, type ObjectHistory, type OperationsScope } from './object-history';
import type { ListKind } from '../filters/list-query';
import { cursorInScope, INTENT_ID, INVOICE_ID, listCommand, LISTS, PAGE_SIZE, PAYMENT_ID, REFUND_ID, searchTarget, type ListDefinition, type ListSection, type OperationsClients } from './operations-lists';
import {
  cryptoFields,
  deliveriesSection,
  emptyList,
  exportAction,
  fields,
  filterForm,
  money,
  objectPath,
  pagingNav,
  refundConfirmPage,
  refundFormPage,
  refundsTable,
  searchForm,
  statusBadge,
  table,
  textFor,
  timelineSection,
  titleWithId,
  when,
  type Text,
} from './operations-pages';
import { DashboardRefunds, newRefundFormKey, readRefundForm, refundableAmount, type RefundForm } from './refund-action';
import { can } from '../../accounts/roles';


type Query = Record<string, unknown>;

function requireId(id: string, pattern: RegExp): string {
  if (!pattern.test(id)) throw new ApiError('not_found', 'No such object.', 'id');
  return id;
}

/**
 * Payments, payment intents, invoices and refunds of the URL's environment: lists, object pages, CSV exports and the
 * refund button, on the same commands (and scoping by merchant and environment) as the API.
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env')
export class OperationsController {
  private readonly clients: OperationsClients;

  constructor(
    private readonly auth: DashboardAuth,
    sessions: SessionsClient,
    private readonly refunds: RefundsClient,
    private readonly refundAction: DashboardRefunds,
    @Inject(OBJECT_HISTORY) private readonly history: ObjectHistory,
  ) {
    this.clients = { sessions, refunds };
  }

  @Get('search')
  async search(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const from = typeof query.from === 'string' && query.from in LISTS ? (query.from as ListSection) : 'payments';
    const id = typeof query.id === 'string' ? query.id.trim() : '';
    await reply.redirect(id ? searchTarget(page.environment, from, id) : `/dashboard/${page.environment}/${from}`, 303);
  }

  @Get('payments')
  payments(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.listPage(LISTS.payments, env, query, request, reply);
  }

  @Get('payments/export.csv')
  paymentsCsv(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.exportCsv(LISTS.payments, env, query, request, reply);
  }

  @Get('refunds')
  refundList(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.listPage(LISTS.refunds, env, query, request, reply);
  }

  @Get('refunds/export.csv')
  refundsCsv(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.exportCsv(LISTS.refunds, env, query, request, reply);
  }

  @Get('payment-intents')
  intents(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.listPage(LISTS['payment-intents'], env, query, request, reply);
  }

  @Get('payment-intents/export.csv')
  intentsCsv(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.exportCsv(LISTS['payment-intents'], env, query, request, reply);
  }

  @Get('invoices')
  invoices(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.listPage(LISTS.invoices, env, query, request, reply);
  }

  @Get('invoices/export.csv')
  invoicesCsv(@Param('env') env: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.exportCsv(LISTS.invoices, env, query, request, reply);
  }

  @Get('payments/:id')
  async payment(@Param('env') env: string, @Param('id') id: string, @Query() query: Query, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const caller = callerOf(request);
    const payment = await this.refunds.getPayment({ ...scopeOf(page), id: requireId(id, PAYMENT_ID) }, caller);
    const refundable = refundableAmount(payment);
    const made = typeof query.refunded === 'string' ? payment.refunds.find((refund) => refund.id === query.refunded) : undefined;
    const notice = made ? html`<div class="banner ok" role="status" data-refund-done>${t('refundDone', { id: made.id, amount: made.amount, status: made.status })}</div>` : null;
    const button =
      can(page.user.role, 'refund') && refundable !== '0.00'
        ? html`<div class="actions"><a class="button danger" href="${objectPath(page.environment, 'payments', payment.id)}/refund" data-refund-button>${t('refundButton')}</a></div>`
        : null;
    const content = html`${titleWithId(t, 'paymentTitle', payment.id)}${notice}<p>${statusBadge(payment.status)}</p>${button}
${fields(t, [
  ['colAmount', money(payment.amount)],
  ['colRefunded', money(payment.refunded_amount)],
  ['colFee', money(payment.fee)],
  ['colNet', money(payment.net)],
  ['colMethod', payment.method],
  ['colSource', sourceLink(page, payment.source)],
  ['colCreated', when(payment.created_at)],
])}${refundsTable(page.environment, payment.refunds, t)}${await this.history_(page, payment.source, [payment.source, ...payment.refunds.slice(0, 10).map((refund) => refund.id)], caller, t)}`;
    await sendPage(reply, page, 'payments', t('paymentTitle', { id: payment.id }), content);
  }

  @Get('payments/:id/refund')
  async refundForm(@Param('env') env: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    if (!can(page.user.role, 'refund')) throw new RoleForbidden();
    const payment = await this.payment_(page, id, callerOf(request));
    await this.sendRefundForm(reply, page, payment, { mode: 'full', key: newRefundFormKey() });
  }

  /** Both steps of the refund button: `review` shows what will happen, `confirm` refunds, `change` goes back. */
  @Post('payments/:id/refund')
  async refund(@Param('env') env: string, @Param('id') id: string, @Body() body: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), body);
    if (!can(page.user.role, 'refund')) throw new RoleForbidden();
    const t = textFor(page);
    const caller = callerOf(request);
    const read = await readRefundForm(body ?? {});
    if (read.kind === 'stale') throw new FormRefused('csrf');
    const payment = await this.payment_(page, id, caller);
    if (read.kind === 'problem' || body.step === 'change') {
      return this.sendRefundForm(reply, page, payment, read.form, read.kind === 'problem' ? read.problem : undefined, read.kind === 'problem' ? 422 : 200);
    }
    if (body.step !== 'confirm') {
      const content = refundConfirmPage(page, payment.id, refundableAmount(payment), read.form, t);
      return sendPage(reply, page, 'payments', t('refundConfirmTitle'), content);
    }
    const outcome = await this.refundAction.refund(page.user.role, scopeOf(page), payment.id, read.form, read.params, caller);
    if (!outcome.ok) return this.sendRefundForm(reply, page, payment, read.form, outcome.problem, 409);
    await reply.redirect(`${objectPath(page.environment, 'payments', payment.id)}?refunded=${encodeURIComponent(outcome.refund.id)}`, 303);
  }

  @Get('refunds/:id')
  async refundPage(@Param('env') env: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const caller = callerOf(request);
    const refund = await this.refunds.getRefund({ ...scopeOf(page), id: requireId(id, REFUND_ID) }, caller);
    const content = html`${titleWithId(t, 'refundTitle', refund.id)}<p>${statusBadge(refund.status)}</p>
${fields(t, [
  ['colAmount', money(refund.amount, refund.currency)],
  ['fieldPaymentId', html`<a href="${objectPath(page.environment, 'payments', refund.payment_id)}" dir="ltr">${refund.payment_id}</a>`],
  ['colReason', refund.reason],
  ['fieldFailureReason', refund.failure_reason],
  ['colCreated', when(refund.created_at)],
  ['fieldCompletedAt', when(refund.completed_at)],
])}${await this.history_(page, refund.id, [refund.id], caller, t)}`;
    await sendPage(reply, page, 'refunds', t('refundTitle', { id: refund.id }), content);
  }

  @Get('payment-intents/:id')
  async intent(@Param('env') env: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const caller = callerOf(request);
    const intent = await this.clients.sessions.getPaymentIntent({ ...scopeOf(page), id: requireId(id, INTENT_ID) }, caller);
    const content = html`${titleWithId(t, 'intentTitle', intent.id)}<p>${statusBadge(intent.status)}</p>
${fields(t, [
  ['colAmount', money(intent.amount, intent.currency)],
  ['colFee', money(intent.fee, intent.currency)],
  ['colNet', money(intent.net_amount, intent.currency)],
  ['colMethod', intent.payment_method],
  ['colExternalRef', intent.external_ref],
  ['colDescription', intent.description],
  ['fieldPaymentId', intent.payment_id ? html`<a href="${objectPath(page.environment, 'payments', intent.payment_id)}" dir="ltr">${intent.payment_id}</a>` : null],
  ['colCreated', when(intent.created_at)],
  ['fieldExpiresAt', when(intent.expires_at)],
  ['fieldPaidAt', when(intent.paid_at)],
  ['fieldCheckoutUrl', html`<a href="${intent.checkout_url}" dir="ltr">${intent.checkout_url}</a>`],
  ['fieldMetadata', metadataText(intent.metadata)],
  ...cryptoFields(intent),
])}${await this.history_(page, intent.id, [intent.id], caller, t)}`;
    await sendPage(reply, page, 'payment-intents', t('intentTitle', { id: intent.id }), content);
  }

  @Get('invoices/:id')
  async invoice(@Param('env') env: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const caller = callerOf(request);
    const invoice = await this.clients.sessions.getInvoice({ ...scopeOf(page), id: requireId(id, INVOICE_ID) }, caller);
    // A line each, isolated: an e-mail or a masked phone number keeps its order in Arabic and is not split by a wrap.
    const paidBy = invoice.payment;
    const payerParts: SafeHtml[] = [];
    if (paidBy?.payer_name) payerParts.push(html`<bdi>${paidBy.payer_name}</bdi>`);
    if (paidBy?.payer_email) payerParts.push(html`<span dir="ltr">${paidBy.payer_email}</span>`);
    if (paidBy?.payer_phone) payerParts.push(html`<span dir="ltr">${paidBy.payer_phone}</span>`);
    const payer = payerParts.length === 0 ? null : html`${payerParts.map((part, i) => html`${i > 0 ? html`<br>` : ''}${part}`)}`;
    const content = html`${titleWithId(t, 'invoiceTitle', invoice.id)}<p>${statusBadge(invoice.status)}</p>
${fields(t, [
  ['colNumber', invoice.number],
  ['colAmount', money(invoice.amount, invoice.currency)],
  ['colFee', money(invoice.fee, invoice.currency)],
  ['colNet', money(invoice.net, invoice.currency)],
  ['colExternalRef', invoice.external_ref],
  ['colDescription', invoice.description],
  ['colMethod', invoice.payment?.method ?? null],
  ['fieldPayer', payer],
  ['colCreated', when(invoice.created_at)],
  ['fieldExpiresAt', when(invoice.expires_at)],
  ['fieldPaidAt', when(invoice.paid_at)],
  ['fieldCheckoutUrl', html`<a href="${invoice.checkout_url}" dir="ltr">${invoice.checkout_url}</a>`],
  ['fieldMetadata', metadataText(invoice.metadata)],
])}${await this.history_(page, invoice.id, [invoice.id], caller, t)}`;
    await sendPage(reply, page, 'invoices', t('invoiceTitle', { id: invoice.id }), content);
  }

  private async listPage<T extends { id: string }, K extends ListKind>(definition: ListDefinition<T, K>, env: string, query: Query, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const path = `/dashboard/${page.environment}/${definition.section}`;
    const listRequest = parseListQuery(definition.shape, query);
    const command = listCommand(definition.kind, listRequest, PAGE_SIZE);
    let rows: SafeHtml;
    let paging: SafeHtml | null = null;
    if (!command.ok) {
      // A combination the owner refuses (the form's fields each passed): said, with nothing listed.
      rows = html`<div class="banner error" role="alert" data-filter-refused>${command.message}</div>`;
    } else {
      const list = await cursorInScope(definition.list(this.clients, scopeOf(page), command.fields, callerOf(request)));
      rows = list.data.length === 0 ? emptyList(listRequest, t) : table(t(definition.title), definition.columns, list.data, page.environment, definition.section, t);
      paging = pagingNav(pagingLinks(path, definition.shape, listRequest, list), t);
    }
    const content = html`<h1>${t(definition.title)}</h1>${searchForm(page, definition.section, t)}${filterForm(path, definition.shape, listRequest, query, t)}${exportAction(path, listRequest, t)}${rows}${paging}`;
    await sendPage(reply, page, definition.section, t(definition.title), content);
  }

  /** The filtered list as CSV, paged through the same command as the page, newest first, at most CSV_MAX_ROWS. */
  private async exportCsv<T extends { id: string }, K extends ListKind>(definition: ListDefinition<T, K>, env: string, query: Query, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const { filters } = parseListQuery(definition.shape, query);
    const command = listCommand(definition.kind, { filters, cursor: {} }, PAGE_SIZE);
    if (!command.ok) throw new ApiError('invalid_request', command.message, command.param);
    const scope = scopeOf(page);
    const caller = callerOf(request);
    const lines = csvLines(definition.csvHeader, definition.csvRow, (startingAfter, limit) =>
      definition.list(this.clients, scope, { ...command.fields, limit, ...(startingAfter ? { starting_after: startingAfter } : {}) }, caller),
    );
    await sendCsv(reply, csvFileName(definition.section, page.environment, new Date()), lines);
  }

  private payment_(page: SignedInRequest, id: string, caller: CommandOptions): Promise<PaymentResource> {
    return this.refunds.getPayment({ ...scopeOf(page), id: requireId(id, PAYMENT_ID) }, caller);
  }

  private async sendRefundForm(reply: FastifyReply, page: SignedInRequest, payment: PaymentResource, form: RefundForm, problem?: Parameters<typeof refundFormPage>[6], status = 200): Promise<void> {
    const t = textFor(page);
    const refundable = refundableAmount(payment);
    const content =
      refundable === '0.00' && !problem
        ? html`${titleWithId(t, 'refundFormTitle', payment.id)}<div class="card"><p>${t('refundNothingLeft')}</p></div>`
        : refundFormPage(page, payment.id, payment.amount, refundable, form, t, problem);
    await sendPage(reply, page, 'payments', t('refundFormTitle', { id: payment.id }), content, status);
  }

  /** An object's events (those of `timelineOf`) and the webhook deliveries of the events of `objectIds`. */
  private async history_(page: SignedInRequest, timelineOf: string, objectIds: readonly string[], caller: CommandOptions, t: Text): Promise<SafeHtml> {
    const scope = scopeOf(page);
    const [events, deliveries] = await Promise.all([this.history.timeline(scope, timelineOf, caller), this.history.deliveries(scope, objectIds, caller)]);
    return html`${timelineSection(events, t)}${deliveriesSection(deliveries, t)}`;
  }
}

export function scopeOf(page: Pick<SignedInRequest, 'user' | 'environment'>): OperationsScope {
  return { merchant_id: page.user.merchantId, environment: page.environment };
}

export function callerOf(request: FastifyRequest): CommandOptions {
  return { correlationId: String(request.id) };
}

function sourceLink(page: SignedInRequest, source: string): SafeHtml | string {
  const section: ListSection | null = INTENT_ID.test(source) ? 'payment-intents' : INVOICE_ID.test(source) ? 'invoices' : null;
  return section ? html`<a href="${objectPath(page.environment, section, source)}" dir="ltr">${source}</a>` : source;
}

function metadataText(metadata: Record<string, unknown>): SafeHtml | null {
  return Object.keys(metadata).length === 0 ? null : html`<code>${JSON.stringify(metadata)}</code>`;
}
