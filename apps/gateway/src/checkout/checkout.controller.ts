import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { CheckoutSession } from '@payments/contracts';
import { environmentOfInvoiceId, environmentOfPaymentIntentId } from '@payments/ids';
import { formatMoney, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { LedgerClient } from '../balance/ledger.client';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { maskPhone } from '../wallets/domain/phone-mask';
import { FormRefused, WalletAuth } from '../wallets/wallet-auth';
import { WalletsRepository } from '../wallets/wallets.repository';
import { walletCodeErrorOf, type WalletFormContext, type WalletSection } from './page/wallet-section';
import { SessionsClient } from '../sessions-client/sessions.client';
import { checkoutView, cryptoDepositView, sessionState, type CheckoutView, type PayNotice } from './page/checkout-view';
import { cryptoOptionsOf, findCryptoOption } from './checkout-crypto';
import { isWalletMethod, renderCheckout, type PageContext } from './page/checkout-page';
import { chooseLanguage, type Language } from './page/messages';
import { securityHeaders } from './page/security-headers';

const moneyCents = (money: string) => {
  const parsed = parseMoneyString(money, { minCents: 0 });
  return parsed.ok ? parsed.cents : 0;
};

const SESSION_ID = /^(pi_(live|test)_|inv_(test_)?)[A-Za-z0-9]{1,64}$/;

interface PayForm {
  method?: string;
  outcome?: string;
  attempt?: string;
  /** '1': pay at the method's provider (Lahza's page; in test mode its test page instead of the sandbox). */
  provider?: string;
}

const REFERENCE = /^[A-Za-z0-9]{1,64}$/;
const ATTEMPT = /^[A-Za-z0-9-]{1,64}$/;
const WALLET_NOTICES = { insufficient: 'insufficient', pending: 'pending', unavailable: 'unavailable' } as const;

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
    private readonly walletAuth: WalletAuth,
    private readonly wallets: WalletsRepository,
    private readonly ledger: LedgerClient,
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
    const view: CheckoutView =
      'page' in found ? found : checkoutView(found, await this.merchantName(found.merchant_id), noticeOf(declined, notice), cryptoOptionsOf(found));
    const status = view.page === 'not_found' ? 404 : view.page === 'unavailable' ? 503 : 200;
    const wallet = 'page' in found || view.page !== 'pay' || !view.methods.some(isWalletMethod) ? null : await this.walletSection(found, language, request, reply);
    // The wallet's own message says why (not enough balance) and what to do: the general "declined" would repeat it.
    if (view.page === 'pay' && wallet?.section.state === 'signed_in' && wallet.section.notice === 'insufficient') view.notice = null;
    await this.sendCheckout(reply, status, view, id, language, wallet);
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
   * The signed-in customer's click on "Pay … from your wallet": our origin, the wallet session's token and a wallet
   * of the session's environment, or nothing is done. Sessions asks the ledger to move the money in one posting; a
   * resubmitted form (the same attempt) is one payment.
   */
  @Post(':id/wallet/pay')
  async payFromWallet(@Param('id') id: string, @Body() form: { _csrf?: string; attempt?: string; lang?: string } | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const lang: Language = form?.lang === 'ar' ? 'ar' : 'en';
    const to = (query: Record<string, string> = {}) => {
      const params = new URLSearchParams(query);
      if (lang === 'ar') params.set('lang', 'ar');
      return params.size > 0 ? `${back}?${params.toString()}` : back;
    };
    // The session's environment is in its id; sessions checks the rest (the session, its methods, the wallet's
    // environment) as it pays, and answers where the shop wants its customer: one command per click, no read first.
    const environment = SESSION_ID.test(id) ? (environmentOfPaymentIntentId(id) ?? environmentOfInvoiceId(id)) : null;
    if (!environment) return this.showPage(id, request, reply);
    let signedIn;
    try {
      signedIn = await this.walletAuth.signedInForm(request, form, environment);
    } catch (error) {
      if (!(error instanceof FormRefused)) throw error;
      const nonce = randomBytes(16).toString('base64');
      return void (await reply.code(403).headers(securityHeaders(nonce)).send(renderCheckout({ page: 'refused', back }, { lang, nonce, path: back, now: new Date(), attempt: '' })));
    }
    const wallet = await this.wallets.find(signedIn.walletId);
    if (!wallet || !ATTEMPT.test(String(form?.attempt ?? ''))) return void reply.redirect(to(), 303);
    const payer = { name: wallet.name, email: wallet.email, phone: maskPhone(wallet.phone), country: wallet.country };
    const caller = { correlationId: String(request.id), commandId: `checkout-${id}-${String(form?.attempt)}` };
    let outcome;
    try {
      outcome = await this.sessions.payFromWallet({ id, wallet_id: wallet.id, payer }, caller);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // No such session: the page says so, as for any other checkout route.
      if (error.code === 'not_found' && error.param === 'id') return this.showPage(id, request, reply);
      // Paid in another tab, expired or cancelled meanwhile, or not payable from a wallet: the page shows what it is
      // now. Else nothing was charged.
      if (error.code === 'invalid_state' || error.code === 'not_found' || error.code === 'payment_methods_unavailable') return void reply.redirect(to(), 303);
      return void reply.redirect(to({ wallet: 'unavailable' }), 303);
    }
    if (outcome.outcome === 'succeeded') return void reply.redirect(this.after(outcome.success_url, id) ?? to(), 303);
    if (outcome.outcome === 'pending') return void reply.redirect(to({ wallet: 'pending' }), 303);
    return void reply.redirect(to(outcome.reason === 'insufficient_funds' ? { wallet: 'insufficient' } : { declined: '1' }), 303);
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

  /**
   * The customer chose a network + token: sessions gives the intent its deposit address (the same one again on a
   * resubmit or from another tab), and the customer goes to the deposit page for that choice.
   */
  @Post(':id/crypto/address')
  async cryptoAddress(
    @Param('id') id: string,
    @Body() form: { network?: string; token?: string; attempt?: string; lang?: string } | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const back = `/checkout/${encodeURIComponent(id)}`;
    const lang: Language = form?.lang === 'ar' ? 'ar' : 'en';
    const withLang = (path: string) => (lang === 'ar' ? `${path}${path.includes('?') ? '&' : '?'}lang=ar` : path);
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    const option = findCryptoOption(found, form?.network, form?.token);
    const attempt = String(form?.attempt ?? '');
    if (found.kind !== 'payment_intent' || !option || !ATTEMPT.test(attempt)) return void reply.redirect(withLang(back), 303);
    // Part already paid: the address is the intent's already (sessions gives none to a processing intent).
    if (found.session.crypto.address) return void reply.redirect(withLang(this.depositHref(id, option)), 303);
    const caller = { correlationId: String(request.id), commandId: `checkout-${id}-${attempt}` };
    try {
      await this.sessions.cryptoAddress({ merchant_id: found.merchant_id, environment: found.environment, id }, caller);
    } catch (error) {
      // Paid, expired or cancelled meanwhile, or sessions busy: the page shows what it is now (nothing was charged).
      if (error instanceof ApiError) return void reply.redirect(withLang(back), 303);
      throw error;
    }
    return void reply.redirect(withLang(this.depositHref(id, option)), 303);
  }

  /** The deposit page: address, amount in the chosen token, QR code, time left; the session's own page once it is no longer waiting. */
  @Get(':id/crypto')
  async cryptoDeposit(
    @Param('id') id: string,
    @Query('network') network: unknown,
    @Query('token') token: unknown,
    @Query('lang') lang: unknown,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const language = chooseLanguage(lang, acceptLanguage);
    const back = `/checkout/${encodeURIComponent(id)}${lang === 'ar' || lang === 'en' ? `?lang=${lang}` : ''}`;
    const found = await this.find(id, request);
    if ('page' in found) return this.showPage(id, request, reply);
    const option = findCryptoOption(found, network, token);
    if (!option) return void reply.redirect(back, 303);
    const view = cryptoDepositView(found, await this.merchantName(found.merchant_id), option, this.depositHref(id, option));
    // Paid (the receipt), expired, no address yet: the session's own page says what it is now.
    if (view.page !== 'crypto') return void reply.redirect(back, 303);
    await this.sendCheckout(reply, 200, view, id, language);
  }

  /** What the deposit page's script compares with what it showed: status and what was received so far. */
  @Get(':id/crypto/status')
  async cryptoStatus(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const found = await this.find(id, request);
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if ('page' in found) return void (await reply.code(found.page === 'not_found' ? 404 : 503).headers(headers).send({ state: found.page }));
    await reply.code(200).headers(headers).send({ state: sessionState(found) });
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

  private depositHref(id: string, option: { chainId: number; token: string }): string {
    return `/checkout/${encodeURIComponent(id)}/crypto?network=${option.chainId}&token=${option.token}`;
  }

  /** The wallet in place of `togo`: the sign-in forms, or the signed-in wallet's balance and pay button. */
  /** A session's page with its own script nonce and a fresh attempt id for its forms. */
  private async sendCheckout(reply: FastifyReply, status: number, view: CheckoutView, id: string, lang: Language, wallet?: PageContext['wallet']): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const html = renderCheckout(view, { lang, nonce, path: `/checkout/${encodeURIComponent(id)}`, now: new Date(), attempt: randomBytes(12).toString('hex'), wallet });
    await reply.code(status).headers(securityHeaders(nonce)).send(html);
  }

  private async walletSection(found: CheckoutSession, lang: Language, request: FastifyRequest, reply: FastifyReply): Promise<{ section: WalletSection; form: WalletFormContext }> {
    const environment = found.environment;
    const state = await this.walletAuth.state(request, reply, environment);
    const query = (request.query ?? {}) as Record<string, unknown>;
    const form: WalletFormContext = { environment, csrf: state.csrf, lang, returnTo: found.session.id, from: 'checkout' };
    if (state.signedIn) {
      let balance: string | null = null;
      try {
        balance = (await this.ledger.getWallet({ wallet_id: state.signedIn.walletId, environment }, { correlationId: String(request.id) })).available;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
      const notice = typeof query.wallet === 'string' && query.wallet in WALLET_NOTICES ? WALLET_NOTICES[query.wallet as keyof typeof WALLET_NOTICES] : null;
      return { section: { state: 'signed_in', email: state.signedIn.email, balance, notice }, form };
    }
    const error = walletCodeErrorOf(query.wallet_error);
    return { section: state.pendingEmail ? { state: 'code_sent', email: state.pendingEmail, error } : { state: 'signed_out', error }, form };
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
