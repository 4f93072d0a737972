import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/account.error';
import { Accounts } from '../../accounts/accounts.service';
import { field } from '../developers/developer-forms';
import { DashboardAuth, type SignedInRequest } from '../session/dashboard-auth';
import { DashboardExceptionFilter } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { securityText } from './security-messages';
import { recoveryCodesPage, securityPage, securityPath, setupPage } from './security-pages';

type Form = Record<string, unknown> | undefined;

/**
 * The signed-in user's own sign-in security (every role): two-step sign-in with TOTP and recovery codes
 * (Accounts.beginTotp / enableTotp / renewRecoveryCodes / disableTotp) and a form to the existing "log out everywhere".
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env/security')
export class SecurityController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly accounts: Accounts,
  ) {}

  @Get()
  async view(@Param('env') env: string, @Query('done') done: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    await this.send(reply, page, { notice: done === 'totp_off' ? securityText(page.lang, 'done_totp_off') : null });
  }

  @Post('totp/start')
  async start(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    let setup;
    try {
      setup = await this.accounts.beginTotp(page.user.id);
    } catch (error) {
      if (error instanceof AccountError && error.reason === 'totp_already_enabled') return this.send(reply, page, { error: securityText(page.lang, 'alreadyOn') }, 409);
      throw error;
    }
    await sendPage(reply, page, 'security', securityText(page.lang, 'setupTitle'), setupPage(page, setup));
  }

  @Post('totp/enable')
  async enable(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    const t = (key: Parameters<typeof securityText>[1]) => securityText(page.lang, key);
    let codes;
    try {
      codes = await this.accounts.enableTotp(page.user.id, field(form, 'code', 32));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      if (error.reason === 'totp_already_enabled') return this.send(reply, page, { error: t('alreadyOn') }, 409);
      const message = error.reason === 'invalid_code' ? t('errorCode') : error.reason === 'totp_not_started' ? t('errorNotStarted') : error.message;
      return sendPage(reply, page, 'security', t('setupTitle'), setupPage(page, null, message), 400);
    }
    await sendPage(reply, page, 'security', t('codesTitle'), recoveryCodesPage(page, codes), 201);
  }

  @Post('recovery-codes')
  async renew(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    const t = (key: Parameters<typeof securityText>[1]) => securityText(page.lang, key);
    let codes;
    try {
      codes = await this.accounts.renewRecoveryCodes(page.user.id, field(form, 'password', 128));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      if (error.reason === 'invalid_credentials') return this.send(reply, page, { renewError: t('errorPassword') }, 400);
      if (error.reason === 'locked') return this.send(reply, page, { renewError: t('errorLocked') }, 423);
      if (error.reason === 'totp_not_enabled') return this.send(reply, page, { error: t('errorTotpOff') }, 409);
      throw error;
    }
    await sendPage(reply, page, 'security', t('renewedTitle'), recoveryCodesPage(page, codes, true), 201);
  }

  @Post('totp/disable')
  async disable(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    try {
      await this.accounts.disableTotp(page.user.id, field(form, 'password', 128));
    } catch (error) {
      if (error instanceof AccountError && error.reason === 'invalid_credentials') return this.send(reply, page, { error: securityText(page.lang, 'errorPassword') }, 400);
      if (error instanceof AccountError && error.reason === 'locked') return this.send(reply, page, { error: securityText(page.lang, 'errorLocked') }, 423);
      throw error;
    }
    await reply.redirect(`${securityPath(page)}?done=totp_off`, 303);
  }

  private async send(reply: FastifyReply, page: SignedInRequest, view: { notice?: string | null; error?: string | null; renewError?: string | null }, status = 200): Promise<void> {
    const [user, left] = await Promise.all([this.accounts.findForSession(page.user.id), this.accounts.unusedRecoveryCodes(page.user.id)]);
    const totpEnabled = user?.totpEnabled === true;
    await sendPage(reply, page, 'security', securityText(page.lang, 'title'), securityPage(page, { totpEnabled, recoveryCodesLeft: left, ...view }), status);
  }
}
