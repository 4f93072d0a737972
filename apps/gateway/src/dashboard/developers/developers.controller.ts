import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, type CommandOptions } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../checkout/page/html';
import { isKeyRollOverlap } from '../../merchants/api-key-lifetime';
import { MerchantAccountError } from '../../merchants/merchant-account.error';
import { MerchantAccounts, type KeyOwner } from '../../merchants/merchant-accounts.service';
import { apiValidationPipe } from '../../validation/api-validation.pipe';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from '../../webhook-endpoints/create-webhook-endpoint.dto';
import { requireEndpointId } from '../../webhook-endpoints/endpoint-scope';
import { DELIVERY_ID } from '../../webhook-endpoints/list-deliveries.query';
import { ReplayWebhookEventsDto } from '../../webhook-endpoints/replay-webhook-events.dto';
import { replayWindow } from '../../webhook-endpoints/replay-window';
import { RollWebhookSecretDto } from '../../webhook-endpoints/roll-webhook-secret.dto';
import type { EndpointScope } from '../../webhook-endpoints/webhook-endpoints.repository';
import { WebhookEndpointsService } from '../../webhook-endpoints/webhook-endpoints.service';
import { WebhooksClient } from '../../webhook-endpoints/webhooks.client';
import { DashboardAuth, type SignedInRequest } from '../session/dashboard-auth';
import { DashboardExceptionFilter, RoleForbidden } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { dateTimeLocal, endpointBody, field, mayManageDevelopers, noticeOf, replayBody, rollSecretBody, type Notice } from './developer-forms';
import { developersText } from './developers-messages';
import {
  deleteEndpointPage,
  developersPath,
  endpointPage,
  endpointPath,
  keyPrefix,
  noticeBanner,
  overviewPage,
  revokeKeyPage,
  rollKeyPage,
  secretPage,
  type OverviewForms,
} from './developers-pages';

type Form = Record<string, unknown> | undefined;
const DELIVERIES_PER_PAGE = 20;
// The API's own validation of its bodies: the page's forms are refused with the same rules and messages.
const validation = apiValidationPipe({ forbidUnknown: true });

/**
 * The developer page (DESIGN §8): API keys and webhook endpoints of the URL's environment, through the same
 * services as the API (MerchantAccounts, WebhookEndpointsService, WebhooksClient). Every id in a URL is looked up
 * within the signed-in merchant and the URL's environment: anyone else's is 404. Viewers see, and are refused 403
 * on every form.
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env/developers')
export class DevelopersController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly accounts: MerchantAccounts,
    private readonly endpoints: WebhookEndpointsService,
    private readonly webhooks: WebhooksClient,
  ) {}

  @Get()
  async overview(@Param('env') env: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    await this.sendOverview(reply, page, {}, noticeBanner(page, noticeOf(query.done)));
  }

  @Post('keys')
  async createKey(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const t = this.text(page);
    const name = field(form, 'name', 200).trim();
    if (name === '') return this.sendOverview(reply, page, { keyName: name, keyError: t('keyNameRequired') }, null, 400);
    let created;
    try {
      created = await this.accounts.createKey(page.user.merchantId, page.environment, name);
    } catch (error) {
      return this.sendOverview(reply, page, { keyName: name, keyError: refusedMessage(error) }, null, 400);
    }
    await sendPage(reply, page, 'developers', t('keyCreatedTitle'), secretPage(page, 'keyCreatedTitle', t('keyShownOnce'), created.token, developersPath(page)), 201);
  }

  @Get('keys/:keyId/revoke')
  async revokeConfirm(@Param('env') env: string, @Param('keyId') keyId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.viewer(request, reply, env);
    if (!page) return;
    const key = await this.ownKey(page, keyId);
    await sendPage(reply, page, 'developers', this.text(page)('revokeTitle', { key: key.name ?? keyPrefix(key) }), revokeKeyPage(page, key));
  }

  @Post('keys/:keyId/revoke')
  async revoke(@Param('env') env: string, @Param('keyId') keyId: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    await keyCall(() => this.accounts.revokeKey(keyId.slice(0, 100), ownerOf(page)));
    await this.back(reply, developersPath(page), 'key_revoked');
  }

  @Get('keys/:keyId/roll')
  async rollChoice(@Param('env') env: string, @Param('keyId') keyId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.viewer(request, reply, env);
    if (!page) return;
    const key = await this.ownKey(page, keyId);
    await sendPage(reply, page, 'developers', this.text(page)('rollTitle', { key: key.name ?? keyPrefix(key) }), rollKeyPage(page, key));
  }

  @Post('keys/:keyId/roll')
  async roll(@Param('env') env: string, @Param('keyId') keyId: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const t = this.text(page);
    const key = await this.ownKey(page, keyId);
    const overlap = field(form, 'overlap', 10);
    let rolled;
    try {
      if (!isKeyRollOverlap(overlap)) throw new MerchantAccountError('invalid', 'choose when the old key stops working');
      rolled = await this.accounts.rollKey(key.keyId, overlap, ownerOf(page));
    } catch (error) {
      if (error instanceof MerchantAccountError && error.reason === 'not_found') throw notFound();
      return sendPage(reply, page, 'developers', t('rollTitle', { key: key.name ?? keyPrefix(key) }), rollKeyPage(page, key, refusedMessage(error)), 400);
    }
    const expiry = rolled.rolled.expiresAt ? rolled.rolled.expiresAt.toISOString().slice(0, 19).replace('T', ' ') + ' UTC' : '';
    const extra = html`<p data-rolled="${rolled.rolled.keyId}">${t('rolledBody', { key: keyPrefix(rolled.rolled), time: expiry })}</p>`;
    await sendPage(reply, page, 'developers', t('rolledTitle'), secretPage(page, 'rolledTitle', t('keyShownOnce'), rolled.token, developersPath(page), extra), 201);
  }

  @Post('endpoints')
  async addEndpoint(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const t = this.text(page);
    const body = endpointBody(form);
    let created;
    try {
      const valid = (await validation.transform(body, { type: 'body', metatype: CreateWebhookEndpointDto })) as CreateWebhookEndpointDto;
      created = await this.endpoints.create(scopeOf(page), { url: valid.url, events: valid.events ?? null, idempotencyKey: null }, String(request.id));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return this.sendOverview(reply, page, { endpoint: body, endpointError: error.message }, null, error.status);
    }
    const secret = created.secret ?? '';
    await sendPage(reply, page, 'developers', t('endpointCreatedTitle'), secretPage(page, 'endpointCreatedTitle', t('secretShownOnce', { url: created.url }), secret, endpointPath(page, created.id)), 201);
  }

  @Get('endpoints/:id')
  async endpoint(
    @Param('env') env: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.viewer(request, reply, env);
    if (!page) return;
    const startingAfter = typeof query.starting_after === 'string' ? query.starting_after : undefined;
    if (startingAfter !== undefined && !DELIVERY_ID.test(startingAfter)) throw notFound();
    const count = typeof query.count === 'string' && /^\d{1,9}$/.test(query.count) ? Number(query.count) : undefined;
    await this.sendEndpoint(reply, page, id, request, { startingAfter, notice: noticeBanner(page, noticeOf(query.done), count) });
  }

  @Post('endpoints/:id/update')
  async updateEndpoint(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const endpoint = await this.endpoints.require(scopeOf(page), requireEndpointId(id));
    const body = endpointBody(form);
    try {
      const valid = (await validation.transform(body, { type: 'body', metatype: UpdateWebhookEndpointDto })) as UpdateWebhookEndpointDto;
      await this.endpoints.update(scopeOf(page), endpoint.id, { url: valid.url, events: valid.events ?? null }, String(request.id));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return this.sendEndpoint(reply, page, endpoint.id, request, { settings: body, settingsError: error.message }, error.status);
    }
    await reply.redirect(`${endpointPath(page, endpoint.id)}?done=updated`, 303);
  }

  @Post('endpoints/:id/roll-secret')
  async rollSecret(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const t = this.text(page);
    const endpointId = requireEndpointId(id);
    let rolled;
    try {
      const valid = (await validation.transform(rollSecretBody(form), { type: 'body', metatype: RollWebhookSecretDto })) as RollWebhookSecretDto;
      rolled = await this.endpoints.rollSecret(scopeOf(page), endpointId, valid.expires_in_hours, String(request.id));
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return this.sendEndpoint(reply, page, endpointId, request, { error: error.message }, error.status);
    }
    const extra = rolled.previous_secret_expires_at ? html`<p>${t('previousSecret', { time: rolled.previous_secret_expires_at.slice(0, 19).replace('T', ' ') + ' UTC' })}</p>` : null;
    await sendPage(reply, page, 'developers', t('secretRolledTitle'), secretPage(page, 'secretRolledTitle', t('secretShownOnce', { url: rolled.url }), rolled.secret ?? '', endpointPath(page, endpointId), extra), 200);
  }

  @Post('endpoints/:id/test')
  async sendTest(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    await this.endpointAction(reply, page, id, request, 'test_sent', async (scope) => {
      await this.webhooks.sendTestEvent(scope, callerOf(request));
    });
  }

  @Post('endpoints/:id/enable')
  async enable(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    await this.endpointAction(reply, page, id, request, 'enabled', async () => {
      await this.endpoints.enable(scopeOf(page), requireEndpointId(id), String(request.id));
    });
  }

  @Post('endpoints/:id/deliveries/:deliveryId/resend')
  async resend(
    @Param('env') env: string,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Body() form: Form,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    if (!DELIVERY_ID.test(deliveryId)) throw notFound();
    await this.endpointAction(reply, page, id, request, 'resent', async (scope) => {
      await this.webhooks.resendDelivery({ ...scope, delivery_id: deliveryId }, callerOf(request));
    });
  }

  @Post('endpoints/:id/replay')
  async replay(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    const body = replayBody(form);
    let scheduled = 0;
    await this.endpointAction(
      reply,
      page,
      id,
      request,
      'replayed',
      async (scope) => {
        const valid = (await validation.transform(body, { type: 'body', metatype: ReplayWebhookEventsDto })) as ReplayWebhookEventsDto;
        scheduled = (await this.webhooks.replayEndpoint({ ...scope, ...replayWindow(valid.from, valid.to) }, callerOf(request))).scheduled;
      },
      () => `&count=${scheduled}`,
      { from: body.from.slice(0, 16), to: body.to.slice(0, 16) },
    );
  }

  @Get('endpoints/:id/delete')
  async deleteConfirm(@Param('env') env: string, @Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.viewer(request, reply, env);
    if (!page) return;
    const endpoint = await this.endpoints.get(scopeOf(page), requireEndpointId(id));
    await sendPage(reply, page, 'developers', this.text(page)('deleteTitle', { url: endpoint.url }), deleteEndpointPage(page, endpoint));
  }

  @Post('endpoints/:id/delete')
  async delete(@Param('env') env: string, @Param('id') id: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.actor(request, reply, env, form);
    await this.endpoints.delete(scopeOf(page), requireEndpointId(id), String(request.id));
    await this.back(reply, developersPath(page), 'endpoint_deleted');
  }

  /** A signed-in page (any role); null when it sent the browser to sign in. */
  private viewer(request: FastifyRequest, reply: FastifyReply, env: string): Promise<SignedInRequest | null> {
    return this.auth.signedInPage(request, reply, environmentOf(env));
  }

  /** A form of a signed-in user whose role may change keys and endpoints: checked before anything is read or done. */
  private async actor(request: FastifyRequest, reply: FastifyReply, env: string, form: Form): Promise<SignedInRequest> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    if (!mayManageDevelopers(page.user.role)) throw new RoleForbidden();
    return page;
  }

  private ownKey(page: SignedInRequest, keyId: string) {
    return keyCall(() => this.accounts.getOwnKey(ownerOf(page), keyId.slice(0, 100)));
  }

  /**
   * An action on one of the merchant's endpoints (404 before anything is sent otherwise), then back to its page
   * with a notice; a refusal (e.g. a disabled endpoint, a bad range) shows on the page with the API's status.
   */
  private async endpointAction(
    reply: FastifyReply,
    page: SignedInRequest,
    id: string,
    request: FastifyRequest,
    notice: Notice,
    act: (scope: { merchant_id: string; environment: 'live' | 'test'; endpoint_id: string }) => Promise<void>,
    suffix: () => string = () => '',
    replay?: { from: string; to: string },
  ): Promise<void> {
    const endpoint = await this.endpoints.require(scopeOf(page), requireEndpointId(id));
    try {
      await act({ merchant_id: endpoint.merchantId, environment: endpoint.environment, endpoint_id: endpoint.id });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return this.sendEndpoint(reply, page, endpoint.id, request, { error: error.message, ...(replay ? { replay } : {}) }, error.status);
    }
    await reply.redirect(`${endpointPath(page, endpoint.id)}?done=${notice}${suffix()}`, 303);
  }

  private async sendOverview(reply: FastifyReply, page: SignedInRequest, forms: OverviewForms, notice: SafeHtml | null, status = 200): Promise<void> {
    const [keys, endpoints] = await Promise.all([this.accounts.listKeys(page.user.merchantId, page.environment), this.endpoints.list(scopeOf(page))]);
    await sendPage(reply, page, 'developers', this.text(page)('title'), overviewPage(page, keys, endpoints.data, forms, notice), status);
  }

  private async sendEndpoint(
    reply: FastifyReply,
    page: SignedInRequest,
    id: string,
    request: FastifyRequest,
    view: { startingAfter?: string; notice?: SafeHtml | null; error?: string; settings?: { url: string; events: string[] | null }; settingsError?: string; replay?: { from: string; to: string } },
    status = 200,
  ): Promise<void> {
    const endpoint = await this.endpoints.get(scopeOf(page), requireEndpointId(id));
    let deliveries = null;
    try {
      deliveries = await this.webhooks.listDeliveries(
        { merchant_id: page.user.merchantId, environment: page.environment, endpoint_id: endpoint.id, limit: DELIVERIES_PER_PAGE, ...(view.startingAfter ? { starting_after: view.startingAfter } : {}) },
        callerOf(request),
      );
    } catch (error) {
      // The endpoint's settings still show when the dispatcher does not answer; its deliveries say so.
      if (!(error instanceof ApiError && error.code === 'service_unavailable')) throw error;
    }
    const now = new Date();
    const replay = view.replay ?? { from: dateTimeLocal(new Date(now.getTime() - 3_600_000)), to: dateTimeLocal(now) };
    await sendPage(reply, page, 'developers', this.text(page)('endpointTitle'), endpointPage(page, { endpoint, deliveries, ...view, replay }), status);
  }

  private async back(reply: FastifyReply, path: string, notice: Notice): Promise<void> {
    await reply.redirect(`${path}?done=${notice}`, 303);
  }

  private text(page: SignedInRequest) {
    return (key: Parameters<typeof developersText>[1], vars?: Record<string, string | number>) => developersText(page.lang, key, vars);
  }
}

function ownerOf(page: SignedInRequest): KeyOwner {
  return { merchantId: page.user.merchantId, environment: page.environment };
}

function scopeOf(page: SignedInRequest): EndpointScope {
  return { merchantId: page.user.merchantId, environment: page.environment };
}

function callerOf(request: FastifyRequest): CommandOptions {
  return { correlationId: String(request.id) };
}

function notFound(): ApiError {
  return new ApiError('not_found', 'Not found.');
}

/** A key operation whose not_found is the page's 404 (another merchant's or environment's key included). */
async function keyCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MerchantAccountError && error.reason === 'not_found') throw notFound();
    throw error;
  }
}

/** A service's refusal of what the form asked (shown next to the form), as opposed to not found or unavailable. */
function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code !== 'not_found' && error.code !== 'service_unavailable' && error.status >= 400 && error.status < 500;
}

function refusedMessage(error: unknown): string {
  if (error instanceof MerchantAccountError && error.reason !== 'not_found') return error.message;
  throw error;
}
