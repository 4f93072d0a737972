import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { formatMoney, parseMoneyString } from '@payments/money';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isCountryCode } from '../accounts/countries';
import { LedgerClient } from '../balance/ledger.client';
import { renderCheckout } from '../checkout/page/checkout-page';
import { chooseLanguage, type Language } from '../checkout/page/messages';
import { securityHeaders } from '../checkout/page/security-headers';
import { renderWalletPage, type StatementEntry, type WalletPageNotice, type WalletPageView } from '../checkout/page/wallet-page';
import { walletCodeErrorOf, type WalletFormContext } from '../checkout/page/wallet-section';
import { MerchantsRepository } from '../merchants/merchants.repository';
import { AddressLimits } from '../rate-limit/address-limits';
import { SessionsClient } from '../sessions-client/sessions.client';
import { normalisePhone } from './domain/phone-mask';
import { environmentOfSession, type WalletEnvironment } from './domain/wallet-session';
import { FormRefused, WalletAuth } from './wallet-auth';
import { WalletSignIn } from './wallet-sign-in';
import { WalletsRepository } from './wallets.repository';

/** What the wallet's forms post (each field optional: a form from elsewhere may send anything). */
interface WalletForm {
  _csrf?: string;
  lang?: string;
  from?: string;
  return_to?: string;
  email?: string;
  code?: string;
  amount?: string;
  name?: string;
  phone?: string;
  country?: string;
}

const REFERENCE = /^[A-Za-z0-9]{1,64}$/;
const CURSOR = /^txn_[A-Za-z0-9_-]{24,64}$/;
const STATEMENT_PAGE = 20;
const NOTICES: Record<string, WalletPageNotice> = {
  succeeded: 'topUpSucceeded',
  failed: 'topUpFailed',
  pending: 'topUpPending',
  invalid: 'topUpInvalid',
  unavailable: 'topUpUnavailable',
};

const environmentOf = (value: string): WalletEnvironment | null => (value === 'live' || value === 'test' ? value : null);
const languageOf = (value: unknown): Language | null => (value === 'ar' || value === 'en' ? value : null);

/**
 * The customer wallet's pages and forms: sign-in by e-mailed code (for the checkout too: its wallet forms post here
 * and come back), the wallet page with balance, statement, card top-up and profile, and the return from the
 * provider's top-up page. Nothing here pays a merchant: the checkout's pay form does.
 */
@ApiExcludeController()
@Controller('wallet')
export class WalletController {
  private readonly merchantNames = new LRUCache<string, string>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly auth: WalletAuth,
    private readonly signIns: WalletSignIn,
    private readonly wallets: WalletsRepository,
    private readonly ledger: LedgerClient,
    private readonly sessions: SessionsClient,
    private readonly merchants: MerchantsRepository,
    private readonly limits: AddressLimits,
  ) {}

  /**
   * Back from the provider's top-up page (Lahza adds `reference` and `trxref`): sessions verifies it with the
   * provider and credits the wallet once, so a forged or replayed return changes nothing the provider did not say.
   */
  @Get('top-ups/return')
  async topUpReturn(@Query('reference') reference: unknown, @Query('trxref') trxref: unknown, @Headers('accept-language') acceptLanguage: string | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const given = typeof reference === 'string' ? reference : typeof trxref === 'string' ? trxref : '';
    if (!REFERENCE.test(given)) return this.plain(reply, 404, 'not_found', chooseLanguage(undefined, acceptLanguage));
    let result;
    try {
      result = await this.sessions.confirmWalletTopUp(given, { correlationId: String(request.id) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return this.plain(reply, error.code === 'not_found' ? 404 : 503, error.code === 'not_found' ? 'not_found' : 'unavailable', chooseLanguage(undefined, acceptLanguage));
    }
    const returnTo = result.return_to && environmentOfSession(result.return_to) === result.environment ? result.return_to : null;
    // Short on a payment: straight back to it once the money is in (or to the wallet page to see why not).
    if (returnTo && result.outcome === 'succeeded') return void reply.redirect(`/checkout/${returnTo}`, 303);
    const query = new URLSearchParams({ top_up: result.outcome });
    if (result.outcome === 'succeeded') query.set('amount', result.amount);
    if (returnTo) query.set('return_to', returnTo);
    return void reply.redirect(`/wallet/${result.environment}?${query.toString()}`, 303);
  }

  @Get(':env')
  async page(@Param('env') env: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const lang = chooseLanguage(query.lang, request.headers['accept-language']);
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', lang);
    const state = await this.auth.state(request, reply, environment);
    const returnTo = this.returnTo(query.return_to, environment);
    const form: WalletFormContext = { environment, csrf: state.csrf, lang, returnTo, from: 'wallet' };
    const codeError = walletCodeErrorOf(query.wallet_error);
    const amount = typeof query.amount === 'string' && /^\d{1,6}\.\d{2}$/.test(query.amount) ? query.amount : null;
    const view: WalletPageView = {
      environment,
      notice: typeof query.top_up === 'string' ? (NOTICES[query.top_up] ?? null) : query.profile === 'saved' ? 'profileSaved' : query.profile === 'invalid' ? 'profileInvalid' : null,
      noticeAmount: amount,
      signIn: state.signedIn ? null : state.pendingEmail ? { state: 'code_sent', email: state.pendingEmail, error: codeError } : { state: 'signed_out', error: codeError },
      wallet: null,
    };
    if (state.signedIn) {
      const caller = { correlationId: String(request.id) };
      const scope = { wallet_id: state.signedIn.walletId, environment };
      const after = typeof query.after === 'string' && CURSOR.test(query.after) ? query.after : undefined;
      const [profile, balance, statement] = await Promise.all([
        this.wallets.find(state.signedIn.walletId),
        this.ledger.getWallet(scope, caller).then((b) => b.available, orNull),
        this.ledger.listWalletTransactions({ ...scope, limit: STATEMENT_PAGE, ...(after ? { starting_after: after } : {}) }, caller).catch(orNull),
      ]);
      view.wallet = {
        email: state.signedIn.email,
        balance,
        profile: { name: profile?.name ?? null, phone: profile?.phone ?? null, country: profile?.country ?? null },
        statement: statement
          ? {
              entries: await Promise.all(statement.data.map(async (t): Promise<StatementEntry> => ({ type: t.type, amount: t.amount, merchantName: t.merchant_id ? await this.merchantName(t.merchant_id) : null, createdAt: t.created_at, description: t.description }))),
              olderCursor: statement.has_more ? (statement.data.at(-1)?.id ?? null) : null,
              paged: after !== undefined,
            }
          : null,
      };
    }
    const nonce = randomBytes(16).toString('base64');
    await reply.code(200).headers(securityHeaders(nonce)).send(renderWalletPage(view, { lang, nonce, path: request.url.slice(0, 2048), form }));
  }

  /** Mails a code to the address (the same answer past the limits) and shows the code form. */
  @Post(':env/code')
  async askCode(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    if (!(await this.signInFormOk(request, reply, form, environment))) return;
    if (await this.limits.take('wallet_codes', request.ip)) return this.back(reply, environment, form, { wallet_error: 'too_many_requests' });
    const asked = await this.signIns.requestCode(environment, form?.email, languageOf(form?.lang) ?? 'en');
    if (!asked.ok) return this.back(reply, environment, form, { wallet_error: 'invalid_email' });
    this.auth.rememberPending(request, reply, environment, asked.email);
    return this.back(reply, environment, form);
  }

  @Post(':env/sign-in')
  async signIn(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    if (!(await this.signInFormOk(request, reply, form, environment))) return;
    const email = this.auth.pendingEmail(request, environment);
    if (!email) return this.back(reply, environment, form, { wallet_error: 'expired' });
    if (await this.limits.take('wallet_sign_in_failures', request.ip)) return this.back(reply, environment, form, { wallet_error: 'too_many_requests' });
    const result = await this.signIns.verifyCode(environment, email, form?.code);
    if (!result.ok) return this.back(reply, environment, form, { wallet_error: result.reason });
    await this.limits.giveBack('wallet_sign_in_failures', request.ip);
    await this.auth.signIn(request, reply, environment, result.wallet);
    return this.back(reply, environment, form);
  }

  /** "Use another e-mail address": back to the e-mail form. */
  @Post(':env/forget')
  async forget(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    if (!(await this.signInFormOk(request, reply, form, environment))) return;
    this.auth.forgetPending(reply);
    return this.back(reply, environment, form);
  }

  @Post(':env/sign-out')
  async signOut(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    if (!(await this.signInFormOk(request, reply, form, environment))) return;
    await this.auth.signOut(request, reply);
    return this.back(reply, environment, form);
  }

  /** The payer details shops see (name, phone masked on invoices, country). */
  @Post(':env/profile')
  async profile(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    const wallet = await this.signedIn(request, reply, form, environment);
    if (!wallet) return;
    const name = typeof form?.name === 'string' ? form.name.trim().replace(/\s+/g, ' ') : '';
    const phone = normalisePhone(form?.phone);
    const country = typeof form?.country === 'string' ? form.country.trim().toUpperCase() : '';
    if (name.length > 160 || !phone.ok || (country !== '' && !isCountryCode(country))) return this.back(reply, environment, { ...form, from: 'wallet' }, { profile: 'invalid' });
    await this.wallets.updateProfile(wallet.walletId, { name: name || null, phone: phone.phone, country: country || null });
    return this.back(reply, environment, { ...form, from: 'wallet' }, { profile: 'saved' });
  }

  /** A card top-up: to the provider's page; the wallet is credited only once sessions verified it on the return. */
  @Post(':env/top-up')
  async topUp(@Param('env') env: string, @Body() form: WalletForm | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const environment = environmentOf(env);
    if (!environment) return this.plain(reply, 404, 'not_found', 'en');
    const wallet = await this.signedIn(request, reply, form, environment);
    if (!wallet) return;
    const page = { ...form, from: 'wallet' };
    const amount = parseMoneyString(typeof form?.amount === 'string' ? form.amount.trim() : form?.amount, { minCents: 50 });
    if (!amount.ok) return this.back(reply, environment, page, { top_up: 'invalid' });
    const returnTo = this.returnTo(form?.return_to, environment);
    try {
      const started = await this.sessions.startWalletTopUp(
        { wallet_id: wallet.walletId, environment, email: wallet.email, amount: formatMoney(amount.cents), ...(returnTo ? { return_to: returnTo } : {}) },
        { correlationId: String(request.id) },
      );
      return void reply.redirect(started.redirect_url, 303);
    } catch (error) {
      // Not configured for this environment, or the provider did not answer: nothing was charged.
      if (error instanceof ApiError) return this.back(reply, environment, page, { top_up: error.code === 'invalid_request' ? 'invalid' : 'unavailable' });
      throw error;
    }
  }

  /** A sign-in form's origin and token; false after answering a refused one. */
  private async signInFormOk(request: FastifyRequest, reply: FastifyReply, form: WalletForm | undefined, environment: WalletEnvironment): Promise<boolean> {
    try {
      await this.auth.checkSignInForm(request, form);
      return true;
    } catch (error) {
      if (!(error instanceof FormRefused)) throw error;
      await this.refused(reply, this.backPath(environment, form), languageOf(form?.lang) ?? 'en');
      return false;
    }
  }

  private async signedIn(request: FastifyRequest, reply: FastifyReply, form: WalletForm | undefined, environment: WalletEnvironment) {
    try {
      return await this.auth.signedInForm(request, form, environment);
    } catch (error) {
      if (!(error instanceof FormRefused)) throw error;
      await this.refused(reply, this.backPath(environment, { ...form, from: 'wallet' }), languageOf(form?.lang) ?? 'en');
      return null;
    }
  }

  private async refused(reply: FastifyReply, back: string, lang: Language): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    await reply.code(403).headers(securityHeaders(nonce)).send(renderCheckout({ page: 'refused', back }, { lang, nonce, path: back.split('?')[0]!, now: new Date(), attempt: '' }));
  }

  private async plain(reply: FastifyReply, status: number, page: 'not_found' | 'unavailable', lang: Language): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    await reply.code(status).headers(securityHeaders(nonce)).send(renderCheckout({ page }, { lang, nonce, path: '/wallet/live', now: new Date(), attempt: '' }));
  }

  /** Back to the page the form was on: the checkout it names, else the wallet page (keeping its return_to). */
  private back(reply: FastifyReply, environment: WalletEnvironment, form: WalletForm | undefined, extra: Record<string, string> = {}): void {
    const path = this.backPath(environment, form);
    const query = new URLSearchParams(extra);
    if (languageOf(form?.lang) === 'ar') query.set('lang', 'ar');
    const joined = query.toString();
    void reply.redirect(joined ? `${path}${path.includes('?') ? '&' : '?'}${joined}` : path, 303);
  }

  private backPath(environment: WalletEnvironment, form: WalletForm | undefined): string {
    const returnTo = this.returnTo(form?.return_to, environment);
    if (returnTo && form?.from === 'checkout') return `/checkout/${returnTo}`;
    return `/wallet/${environment}${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`;
  }

  /** A checkout session of this environment to go back to, else null. */
  private returnTo(value: unknown, environment: WalletEnvironment): string | null {
    return typeof value === 'string' && environmentOfSession(value) === environment ? value : null;
  }

  private async merchantName(merchantId: string): Promise<string> {
    const cached = this.merchantNames.get(merchantId);
    if (cached !== undefined) return cached;
    const name = (await this.merchants.findMerchant(merchantId))?.name ?? '';
    this.merchantNames.set(merchantId, name);
    return name;
  }
}

/** A ledger read that failed as a service (not as a bug) shows as "unavailable". */
function orNull(error: unknown): null {
  if (error instanceof ApiError) return null;
  throw error;
}
