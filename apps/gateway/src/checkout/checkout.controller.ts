import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { CheckoutSession } from '@payments/contracts';
import { formatMoney, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { SessionsClient } from '../sessions-client/sessions.client';
import { checkoutView, type CheckoutView, type PayNotice } from './page/checkout-view';
import { renderCheckout } from './page/checkout-page';
import { chooseLanguage } from './page/messages';

const moneyCents = (money: string) => {
  const parsed = parseMoneyString(money, { minCents: 0 });
  return parsed.ok ? parsed.cents : 0;
};

const SESSION_ID = /^(pi_(live|test)_|inv_(test_)?)[A-Za-z0-9]{1,64}$/;

function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    // Nothing from elsewhere: inline style and script only under this response's nonce; forms post here, and the
    // redirect after a payment may go to the merchant's https success_url.
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self'; form-action 'self' https:; frame-ancestors 'none'; base-uri 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

interface PayForm {
  method?: string;
  outcome?: string;
  attempt?: string;
  /** '1': pay at the method's provider (Lahza's page; in test mode its test page instead of the sandbox). */
  provider?: string;
}

const REFERENCE = /^[A-Za-z0-9]{1,64}$/;

function noticeOf(declined: unknown, notice: unknown): PayNotice {
  if (notice === 'provider_unavailable') return 'provider_unavailable';
  return declined === '1' ? 'declined' : null;
}

/**
 * The hosted checkout at `checkout_url`: a server-rendered page per session state, in English or Arabic. In test
 * mode each method has a sandbox (succeed or decline) that drives the same commands, events, ledger postings and
 * webhooks as a simulate; live payment methods arrive with their providers.
 */
@ApiExcludeController()
@Controller('checkout')
export class CheckoutController {
  private readonly merchantNames = new LRUCache<string, string>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly sessions: SessionsClient,
    private readonly merchants: MerchantsRepository,
  ) {}

  @Get(':id')
  async page(
    @Param('id') id: string,
    @Query('lang') lang: unknown,
    @Query('declined') declined: unknown,
    @Query('notice') notice: unknown,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const language = chooseLanguage(lang, acceptLanguage);
    const found = await this.find(id, request);
    const view: CheckoutView = 'page' in found ? found : checkoutView(found, await this.merchantName(found.merchant_id), noticeOf(declined, notice));
    const status = view.page === 'not_found' ? 404 : view.page === 'unavailable' ? 503 : 200;
    const nonce = randomBytes(16).toString('base64');
    const html = renderCheckout(view, { lang: language, nonce, path: `/checkout/${encodeURIComponent(id)}`, now: new Date(), attempt: randomBytes(12).toString('hex') });
    await reply.code(status).headers(securityHeaders(nonce)).send(html);
  }

  @Post(':id/pay')
  async pay(@Param('id') id: string, @Body() form: PayForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    const method = String(form?.method ?? '');
    // A real provider: the only way to pay live; in test mode its test page, beside the sandboxes.
    if (found.provider_methods.includes(method) && (found.environment === 'live' || form?.provider === '1')) {
      return this.toProvider(found, method, request, reply);
    }
    const succeed = form?.outcome === 'succeed';
    // Sandboxes are for test sessions; an unknown method or outcome, or a stale form, just shows the page as it is now
    // (an outcome it does not know was taken for a decline).
    const known = form?.outcome === 'succeed' || form?.outcome === 'decline';
    if (found.environment !== 'test' || !known || !this.methodsOf(found).includes(method) || !/^[A-Za-z0-9-]{1,64}$/.test(String(form?.attempt ?? ''))) {
      return void reply.redirect(back, 303);
    }
    // The form's token is the command id: a double submit (or a resubmitted page) is one attempt.
    const caller = { correlationId: String(request.id), commandId: `checkout-${id}-${String(form?.attempt)}` };
    const scope = { merchant_id: found.merchant_id, environment: found.environment, id };
    let status: string;
    try {
      status =
        found.kind === 'payment_intent'
          ? (await this.sessions.simulatePaymentIntent({ ...scope, result: succeed ? 'succeeded' : 'failed', method: method as never }, caller)).status
          : (await this.sessions.simulateInvoice({ ...scope, result: succeed ? 'paid' : 'failed', method: method as never }, caller)).status;
    } catch (error) {
      // Already paid (another tab), expired or cancelled meanwhile: the page shows what it is now.
      if (error instanceof ApiError && (error.code === 'invalid_state' || error.code === 'not_found')) return void reply.redirect(back, 303);
      throw error;
    }
    if (status === 'succeeded' || status === 'paid') return void reply.redirect(this.after(found.success_url, id) ?? back, 303);
    return void reply.redirect(`${back}?declined=1`, 303);
  }

  /**
   * Back from the provider's page with the attempt's reference (Lahza adds `reference` and `trxref`): sessions
   * verifies it with the provider, so a forged or replayed return changes nothing that the provider did not say.
   */
  @Get(':id/return')
  async providerReturn(
    @Param('id') id: string,
    @Query('reference') reference: unknown,
    @Query('trxref') trxref: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const given = typeof reference === 'string' ? reference : typeof trxref === 'string' ? trxref : '';
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    if (!REFERENCE.test(given)) return void reply.redirect(back, 303);
    let result;
    try {
      result = await this.sessions.confirmProviderPayment({ id, reference: given }, { merchant_id: found.merchant_id, environment: found.environment }, { correlationId: String(request.id) });
    } catch (error) {
      // Not this session's attempt, or sessions busy: the page shows the session as it is.
      if (error instanceof ApiError) return void reply.redirect(back, 303);
      throw error;
    }
    if (result.outcome === 'failed') return void reply.redirect(`${back}?declined=1`, 303);
    // A late payment is explained on our receipt page rather than sent to a shop that may have given up on it.
    if (result.outcome === 'succeeded' && !result.late) return void reply.redirect(this.after(found.success_url, id) ?? back, 303);
    return void reply.redirect(back, 303);
  }

  /** Test mode's crypto sandbox: a transfer of half of what is due, or of 1.00 more than due. */
  @Post(':id/crypto')
  async cryptoTransfer(@Param('id') id: string, @Body() form: { send?: string; attempt?: string } | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    const attempt = String(form?.attempt ?? '');
    if (found.kind !== 'payment_intent' || found.environment !== 'test' || !found.session.available_methods.includes('crypto') || !/^[A-Za-z0-9-]{1,64}$/.test(attempt)) {
      return void reply.redirect(back, 303);
    }
    const due = moneyCents(found.session.crypto.remaining_amount) || moneyCents(found.session.amount);
    const cents = form?.send === 'over' ? due + 100 : Math.max(1, Math.floor(due / 2));
    const caller = { correlationId: String(request.id), commandId: `checkout-${id}-${attempt}` };
    let status: string;
    try {
      status = (await this.sessions.simulateCryptoTransfer({ merchant_id: found.merchant_id, environment: found.environment, id, amount: formatMoney(cents) }, caller)).status;
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'invalid_state' || error.code === 'not_found' || error.code === 'invalid_request')) return void reply.redirect(back, 303);
      throw error;
    }
    return void reply.redirect(status === 'succeeded' ? (this.after(found.success_url, id) ?? back) : back, 303);
  }

  @Post(':id/cancel')
  async cancel(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    if (found.kind === 'payment_intent') {
      try {
        await this.sessions.cancelPaymentIntent({ merchant_id: found.merchant_id, environment: found.environment, id }, { correlationId: String(request.id) });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_state') return void reply.redirect(back, 303);
        throw error;
      }
    }
    return void reply.redirect(this.after(found.cancel_url, id) ?? back, 303);
  }

  /** Sends the customer to the provider's page of the session's attempt (the same one from every tab). */
  private async toProvider(found: CheckoutSession, method: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const back = `/checkout/${encodeURIComponent(found.session.id)}`;
    try {
      const { redirect_url } = await this.sessions.startProviderPayment(
        found.session.id,
        method as 'lahza',
        { merchant_id: found.merchant_id, environment: found.environment },
        { correlationId: String(request.id) },
      );
      return void reply.redirect(redirect_url, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Nothing was charged: the customer may try again.
      if (error.code === 'service_unavailable') return void reply.redirect(`${back}?notice=provider_unavailable`, 303);
      return void reply.redirect(back, 303);
    }
  }

  private showPage(id: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return this.page(id, undefined, undefined, undefined, request.headers['accept-language'], request, reply);
  }

  /** The session, or the page to show instead (unknown id, sessions unavailable). */
  private async find(id: string, request: FastifyRequest): Promise<CheckoutSession | Extract<CheckoutView, { page: 'not_found' | 'unavailable' }>> {
    if (!SESSION_ID.test(id)) return { page: 'not_found' };
    try {
      return await this.sessions.getCheckout(id, { correlationId: String(request.id) });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return { page: 'not_found' };
      if (error instanceof ApiError) return { page: 'unavailable' };
      throw error;
    }
  }

  private methodsOf(found: CheckoutSession): string[] {
    return found.kind === 'payment_intent' ? found.session.available_methods : found.methods;
  }

  /** The merchant's URL with the session id added, as the customer is sent back. */
  private after(url: string | null, id: string): string | null {
    if (!url) return null;
    const target = new URL(url);
    target.searchParams.set('session_id', id);
    return target.toString();
  }

  private async merchantName(merchantId: string): Promise<string> {
    const cached = this.merchantNames.get(merchantId);
    if (cached !== undefined) return cached;
    const name = (await this.merchants.findMerchant(merchantId))?.name ?? '';
    this.merchantNames.set(merchantId, name);
    return name;
  }
}
