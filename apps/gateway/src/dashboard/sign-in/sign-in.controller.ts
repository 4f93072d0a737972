import { Body, Controller, Get, Inject, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { parseCookies, serializeCookie } from '../session/cookies';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../checkout/page/html';
import { AccountError } from '../../accounts/account.error';
import { AddressLimits, type AddressRefusal } from '../../rate-limit/address-limits';
import type { DashboardLanguage } from '../web/i18n';
import { DashboardAuth, type PageRequest } from '../session/dashboard-auth';
import { SessionStore } from '../session/session-store';
import { DashboardExceptionFilter } from '../web/dashboard-exception.filter';
import { sendPublicPage } from '../web/respond';
import { SIGN_IN_ACCOUNTS, type SignInAccounts, type SignInResult } from './accounts-port';
import { forgotForm, messageCard, signedUpCard, resetForm, secondFactorForm, signInForm, signUpForm, type Notice } from './sign-in-pages';
import { signInText } from './sign-in-messages';

type Form = Record<string, unknown> | undefined;
const field = (form: Form, name: string, max = 1000): string => {
  const value = form?.[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
};
const PENDING_COOKIE = '__Host-dashboard_pending';
/** Only a path of the dashboard itself is a place to go back to after sign-in. */
const safeNext = (next: string): string => (/^\/dashboard\/(live|test)\/[A-Za-z0-9/_?=&%.-]*$/.test(next) && !next.includes('//') ? next : '/dashboard');

/** Signing up, in and out, confirming the address, resetting the password, unlocking: the pages before a session. */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard')
export class SignInController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly store: SessionStore,
    @Inject(SIGN_IN_ACCOUNTS) private readonly accounts: SignInAccounts,
    private readonly limits: AddressLimits,
  ) {}

  @Get()
  async root(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, 'test');
    if (page) await reply.redirect(`/dashboard/${page.session.environment ?? 'test'}/home`, 303);
  }

  @Get('login')
  async loginPage(@Query('next') next: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'signInTitle'), signInForm(page, { next: typeof next === 'string' ? next : '' }));
  }

  @Post('login')
  async login(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const t = (key: Parameters<typeof signInText>[1]) => signInText(page.lang, key);
    const email = field(form, 'email', 254);
    const next = safeNext(field(form, 'next', 2048));
    const refusal = await this.limits.take('sign_in_failures', request.ip);
    if (refusal) return this.tooMany(reply, page, refusal, 'tooManyFailures', 'signInTitle', (notice) => signInForm(page, { email, next }, notice));
    const result = await this.accounts.login(email, field(form, 'password', 128));
    // The right password (a second step or a confirmation may still be due) is not a failure of the address.
    if ('user' in result || result.refused === 'second_factor_required' || result.refused === 'email_not_confirmed') await this.limits.giveBack('sign_in_failures', request.ip);
    if ('refused' in result && result.refused === 'second_factor_required' && result.userId) {
      const pending = await this.store.createPendingSignIn(result.userId);
      void reply.header('set-cookie', serializeCookie(PENDING_COOKIE, pending, { path: '/', httpOnly: true, secure: true, sameSite: 'strict', maxAge: 300 }));
      return sendPublicPage(reply, page, t('secondFactorTitle'), secondFactorForm(page));
    }
    if (await this.signedIn(request, reply, result, next)) return;
    const refused = 'refused' in result ? result.refused : 'invalid_credentials';
    const text: Notice =
      refused === 'locked'
        ? { tone: 'error', text: t('locked') }
        : refused === 'email_not_confirmed'
          ? { tone: 'error', text: html`${t('notConfirmed')}<form class="inline" method="post" action="/dashboard/confirm/resend"><input type="hidden" name="_csrf" value="${page.csrf}"><input type="hidden" name="email" value="${email}"><button class="link" type="submit">${t('resend')}</button></form>` }
          : { tone: 'error', text: t('invalidCredentials') };
    await sendPublicPage(reply, page, t('signInTitle'), signInForm(page, { email, next }, text), refused === 'locked' ? 423 : 401);
  }

  @Post('login/second-factor')
  async secondFactor(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const t = (key: Parameters<typeof signInText>[1]) => signInText(page.lang, key);
    const pendingId = parseCookies(request.headers.cookie)[PENDING_COOKIE];
    const userId = await this.store.pendingSignIn(pendingId);
    if (!userId) return sendPublicPage(reply, page, t('signInTitle'), signInForm(page, {}), 401);
    const refusal = await this.limits.take('sign_in_failures', request.ip);
    if (refusal) return this.tooMany(reply, page, refusal, 'tooManyFailures', 'secondFactorTitle', (notice) => secondFactorForm(page, notice));
    const result = await this.accounts.secondFactor(userId, field(form, 'code', 32).trim());
    if ('user' in result) await Promise.all([this.store.endPendingSignIn(pendingId), this.limits.giveBack('sign_in_failures', request.ip)]);
    if (await this.signedIn(request, reply, result, '/dashboard')) return;
    if ('refused' in result && result.refused === 'locked') return sendPublicPage(reply, page, t('signInTitle'), signInForm(page, {}, { tone: 'error', text: t('locked') }), 423);
    await sendPublicPage(reply, page, t('secondFactorTitle'), secondFactorForm(page, { tone: 'error', text: t('secondFactorInvalid') }), 401);
  }

  @Post('logout')
  async logout(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Refused like any form without its token: a cross-site page must not be able to sign anyone out either.
    await this.auth.signedInForm(request, reply, 'test', form);
    await this.auth.signOut(request, reply);
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'signedOutTitle'), messageCard(page, 'signedOutTitle', 'signedOutBody', {}, { href: '/dashboard/login', label: 'signIn' }));
  }

  @Post('logout-everywhere')
  async logoutEverywhere(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const signedIn = await this.auth.signedInForm(request, reply, 'test', form);
    await this.accounts.logoutEverywhere(signedIn.user.id);
    await this.auth.signOut(request, reply);
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'signedOutTitle'), messageCard(page, 'signedOutTitle', 'signedOutBody', {}, { href: '/dashboard/login', label: 'signIn' }));
  }

  @Get('signup')
  async signUpPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'signUpTitle'), signUpForm(page, {}));
  }

  @Post('signup')
  async signUp(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const values = { email: field(form, 'email', 254).trim(), businessName: field(form, 'business_name', 200).trim() };
    const refusal = await this.limits.take('mails', request.ip);
    if (refusal) return this.tooMany(reply, page, refusal, 'tooManyMails', 'signUpTitle', (notice) => signUpForm(page, values, notice));
    let testKey: string;
    try {
      testKey = (await this.accounts.signUp({ ...values, password: field(form, 'password', 129), language: page.lang })).testKey.token;
    } catch (error) {
      const message = accountMessage(error, page.lang);
      if (!message) throw error;
      return sendPublicPage(reply, page, signInText(page.lang, 'signUpTitle'), signUpForm(page, values, { tone: 'error', text: message }), 400);
    }
    // The test key at once: test mode works from the first minute, before the address is even confirmed.
    await sendPublicPage(reply, page, signInText(page.lang, 'checkMailTitle'), signedUpCard(page, values.email, testKey));
  }

  @Get('confirm')
  async confirm(@Query('token') token: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    const done = await this.tokenStep(() => this.accounts.confirmEmail(String(token ?? '')));
    if (!done) return sendPublicPage(reply, page, signInText(page.lang, 'linkInvalidTitle'), messageCard(page, 'linkInvalidTitle', 'linkInvalidBody'), 400);
    await sendPublicPage(reply, page, signInText(page.lang, 'confirmedTitle'), messageCard(page, 'confirmedTitle', 'confirmedBody', {}, { href: '/dashboard/login', label: 'signIn' }));
  }

  @Post('confirm/resend')
  async resendConfirmation(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const email = field(form, 'email', 254);
    const refusal = await this.limits.take('mails', request.ip);
    if (refusal) return this.tooMany(reply, page, refusal, 'tooManyMails', 'signInTitle', (notice) => signInForm(page, { email }, notice));
    await this.accounts.resendConfirmation(email);
    await sendPublicPage(reply, page, signInText(page.lang, 'checkMailTitle'), messageCard(page, 'checkMailTitle', 'checkMailBody', { email }));
  }

  @Get('unlock')
  async unlock(@Query('token') token: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    const done = await this.tokenStep(() => this.accounts.unlock(String(token ?? '')));
    if (!done) return sendPublicPage(reply, page, signInText(page.lang, 'linkInvalidTitle'), messageCard(page, 'linkInvalidTitle', 'linkInvalidBody'), 400);
    await sendPublicPage(reply, page, signInText(page.lang, 'unlockedTitle'), messageCard(page, 'unlockedTitle', 'unlockedBody', {}, { href: '/dashboard/login', label: 'signIn' }));
  }

  @Get('forgot-password')
  async forgotPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'forgotTitle'), forgotForm(page));
  }

  @Post('forgot-password')
  async forgot(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const email = field(form, 'email', 254).trim();
    const refusal = await this.limits.take('mails', request.ip);
    if (refusal) return this.tooMany(reply, page, refusal, 'tooManyMails', 'forgotTitle', (notice) => forgotForm(page, notice));
    await this.accounts.requestPasswordReset(email);
    await sendPublicPage(reply, page, signInText(page.lang, 'forgotTitle'), messageCard(page, 'forgotTitle', 'forgotSentBody', { email }));
  }

  @Get('reset-password')
  async resetPage(@Query('token') token: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    await sendPublicPage(reply, page, signInText(page.lang, 'resetTitle'), resetForm(page, String(token ?? '').slice(0, 200)));
  }

  @Post('reset-password')
  async reset(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const token = field(form, 'token', 200);
    try {
      await this.accounts.resetPassword(token, field(form, 'password', 129));
    } catch (error) {
      const message = accountMessage(error, page.lang);
      if (!message) throw error;
      return sendPublicPage(reply, page, signInText(page.lang, 'resetTitle'), resetForm(page, token, { tone: 'error', text: message }), 400);
    }
    await sendPublicPage(reply, page, signInText(page.lang, 'resetTitle'), messageCard(page, 'resetTitle', 'resetDoneBody', {}, { href: '/dashboard/login', label: 'signIn' }));
  }

  /** A form again with why its address is refused (429, Retry-After): nothing was checked, sent or made. */
  private async tooMany(
    reply: FastifyReply,
    page: PageRequest,
    refusal: AddressRefusal,
    why: 'tooManyFailures' | 'tooManyMails',
    title: Parameters<typeof signInText>[1],
    form: (notice: Notice) => SafeHtml,
  ): Promise<void> {
    void reply.header('retry-after', String(refusal.retryAfterSeconds));
    const notice: Notice = { tone: 'error', text: signInText(page.lang, why, { minutes: Math.ceil(refusal.retryAfterSeconds / 60) }) };
    await sendPublicPage(reply, page, signInText(page.lang, title), form(notice), 429);
  }

  /** Starts the session of a signed-in result and sends the browser on; false when the result is a refusal. */
  private async signedIn(request: FastifyRequest, reply: FastifyReply, result: SignInResult, next: string): Promise<boolean> {
    if (!('user' in result)) return false;
    await this.auth.signIn(request, reply, result.user);
    await reply.redirect(next, 303);
    return true;
  }

  /** A step taken with a mailed token: true when it was taken, false for a token that is unknown, used or expired. */
  private async tokenStep(step: () => Promise<unknown>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (error) {
      if (error instanceof AccountError) return false;
      throw error;
    }
  }
}

/** The message of an accounts error meant for the user (bad input, used link, ...), in the page's language; null for anything else. */
function accountMessage(error: unknown, lang: DashboardLanguage): string | null {
  if (!(error instanceof AccountError)) return null;
  const known: Partial<Record<AccountError['reason'], Parameters<typeof signInText>[1]>> = {
    invalid_email: 'errorEmail',
    weak_password: 'errorPassword',
    email_taken: 'errorEmailTaken',
    invalid_token: 'linkInvalidBody',
    token_expired: 'linkInvalidBody',
  };
  const key = known[error.reason];
  return key ? signInText(lang, key) : error.message;
}
