import { Controller, Get, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { BalanceTransactionResource } from '@payments/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BalanceCache } from '../../balance/balance-cache';
import { LedgerClient } from '../../balance/ledger.client';
import { html } from '../../checkout/page/html';
import { DashboardAuth } from '../session/dashboard-auth';
import { DashboardExceptionFilter } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { csvFileName, csvLines } from '../operations/csv';
import { sendCsv } from '../operations/csv-response';
import { parseListQuery, pagingLinks } from '../operations/list-query';
import { callerOf, scopeOf } from '../operations/operations.controller';
import { cursorInScope, PAGE_SIZE, type Column } from '../operations/operations-lists';
import { emptyList, exportAction, filterForm, money, pagingNav, scrollable, textFor, when } from '../operations/operations-pages';
import { BALANCE_CSV_HEADER, BALANCE_TRANSACTIONS_SHAPE, balanceCsvRow, balanceTransactionsCommand } from './balance-view';

const COLUMNS: Column<BalanceTransactionResource>[] = [
  { label: 'colId', value: (x) => x.id },
  { label: 'colType', value: (x) => x.type },
  { label: 'colAmount', value: (x) => x.amount, kind: 'money' },
  { label: 'colFee', value: (x) => x.fee, kind: 'money' },
  { label: 'colNet', value: (x) => x.net, kind: 'money' },
  { label: 'colSource', value: (x) => x.source },
  { label: 'colCreated', value: (x) => x.created_at, kind: 'date' },
];

/** The balance of the URL's environment and the transactions behind it, as the API's balance resources. */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env/balance')
export class DashboardBalanceController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly ledger: LedgerClient,
    private readonly balances: BalanceCache,
  ) {}

  @Get()
  async balance(@Param('env') env: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = textFor(page);
    const scope = scopeOf(page);
    const caller = callerOf(request);
    const path = `/dashboard/${page.environment}/balance`;
    const listRequest = parseListQuery(BALANCE_TRANSACTIONS_SHAPE, query);
    const [balance, list] = await Promise.all([this.balances.get(scope, caller), cursorInScope(this.ledger.listBalanceTransactions(balanceTransactionsCommand(scope, listRequest, PAGE_SIZE), caller))]);
    const available = balance.available.length === 0 ? [{ amount: '0.00', currency: 'USD' }] : balance.available;
    const rows =
      list.data.length === 0
        ? emptyList(listRequest, t)
        : html`<div class="table-wrap" ${scrollable(t('balanceTransactionsHeading'))}><table><thead><tr>${COLUMNS.map((c) => html`<th scope="col"${c.kind === 'money' ? html` class="num"` : ''}>${t(c.label)}</th>`)}</tr></thead><tbody>${list.data.map(
            (x) => html`<tr>${COLUMNS.map((c) => {
              const value = c.value(x);
              if (value === null) return html`<td>—</td>`;
              if (c.kind === 'money') return html`<td class="num">${money(value, x.currency)}</td>`;
              if (c.kind === 'date') return html`<td>${when(value)}</td>`;
              return html`<td><code>${value}</code></td>`;
            })}</tr>`,
          )}</tbody></table></div>`;
    const content = html`<h1>${t('balanceTitle')}</h1>
<div class="card"><dl class="fields">${available.map((entry) => html`<dt>${t('balanceAvailable')}</dt><dd data-balance-available>${money(entry.amount, entry.currency)}</dd>`)}</dl></div>
<h2>${t('balanceTransactionsHeading')}</h2>${filterForm(path, BALANCE_TRANSACTIONS_SHAPE, listRequest, query, t)}${exportAction(path, listRequest, t)}${rows}${pagingNav(pagingLinks(path, BALANCE_TRANSACTIONS_SHAPE, listRequest, list), t)}`;
    await sendPage(reply, page, 'balance', t('balanceTitle'), content);
  }

  @Get('export.csv')
  async exportCsv(@Param('env') env: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const { filters } = parseListQuery(BALANCE_TRANSACTIONS_SHAPE, query);
    const scope = scopeOf(page);
    const caller = callerOf(request);
    const lines = csvLines(BALANCE_CSV_HEADER, balanceCsvRow, (startingAfter, limit) =>
      this.ledger.listBalanceTransactions(balanceTransactionsCommand(scope, { filters, cursor: startingAfter ? { starting_after: startingAfter } : {} }, limit), caller),
    );
    await sendCsv(reply, csvFileName('balance-transactions', page.environment, new Date()), lines);
  }
}
