import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { can } from '../../accounts/roles';
import type { VerificationDetails, VerificationField } from '../../accounts/verification';
import { MerchantAccountError } from '../../merchants/merchant-account.error';
import { MerchantAccounts } from '../../merchants/merchant-accounts.service';
import { field } from '../developers/developer-forms';
import { DashboardAuth, type SignedInRequest } from '../session/dashboard-auth';
import { DashboardExceptionFilter, RoleForbidden } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { verificationText } from './verification-messages';
import { VERIFICATION_INPUTS, verificationPage, verificationPath, type VerificationView } from './verification-pages';

type Form = Record<string, unknown> | undefined;

/**
 * The account's identity verification (DESIGN §8): its status (with the operator's reason after a rejection) for
 * everyone, and for an owner, while unverified or rejected, the details form sent through
 * MerchantAccounts.submitVerification (its own checks; a refused field is shown next to its input).
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env/verification')
export class VerificationController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly merchants: MerchantAccounts,
  ) {}

  @Get()
  async view(@Param('env') env: string, @Query('done') done: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    await this.send(reply, page, { submitted: done === 'submitted' });
  }

  @Post()
  async submit(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    if (!can(page.user.role, 'manage_verification')) throw new RoleForbidden();
    const values: VerificationDetails = { businessName: '', country: '', ownerName: '', contact: '' };
    for (const input of VERIFICATION_INPUTS) values[input.field] = field(form, input.name, 300);
    try {
      await this.merchants.submitVerification(page.user.merchantId, values);
    } catch (error) {
      if (!(error instanceof MerchantAccountError) || error.reason === 'not_found') throw error;
      const t = (key: Parameters<typeof verificationText>[1]) => verificationText(page.lang, key);
      // Pending or verified already (another owner sent them a moment ago): the page shows the status as it is now.
      if (error.reason === 'conflict') return this.send(reply, page, { formError: t('error_conflict') }, 409);
      const fieldAt = VERIFICATION_INPUTS.find((input) => input.field === error.field)?.field;
      const view: VerificationView = fieldAt ? { values, fieldError: { field: fieldAt, message: t(`error_${fieldAt}` as `error_${VerificationField}`) } } : { values, formError: error.message };
      return this.send(reply, page, view, 400);
    }
    await reply.redirect(`${verificationPath(page)}?done=submitted`, 303);
  }

  private async send(reply: FastifyReply, page: SignedInRequest, view: VerificationView, status = 200): Promise<void> {
    // The merchant as it is now (the session's copy was read at the start of this request, before any submission).
    const merchant = await this.merchants.getMerchant(page.user.merchantId);
    const current = { ...page, user: { ...page.user, merchant: { ...page.user.merchant, verificationStatus: merchant.verificationStatus, rejectionReason: merchant.rejectionReason } } };
    await sendPage(reply, current, 'verification', verificationText(page.lang, 'title'), verificationPage(current, merchant, view), status);
  }
}
