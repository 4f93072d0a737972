import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/account.error';
import { Accounts, type InvitationOffer } from '../../accounts/accounts.service';
import { DashboardAuth, type PageRequest } from '../session/dashboard-auth';
import { roleName } from '../team/team-pages';
import { DashboardExceptionFilter } from '../web/dashboard-exception.filter';
import { sendPublicPage } from '../web/respond';
import { signInText } from './sign-in-messages';
import { invitationForm, messageCard, type Notice } from './sign-in-pages';

type Form = Record<string, unknown> | undefined;
const field = (form: Form, name: string, max: number): string => (typeof form?.[name] === 'string' ? (form[name] as string).slice(0, max) : '');

/**
 * The link of an invitation mail: the invited person sees what they join, chooses a password, and is signed in as
 * the new user (Accounts.acceptInvitation: the address counts as confirmed, the link works once).
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/invitations')
export class InvitationsController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly accounts: Accounts,
  ) {}

  @Get('accept')
  async acceptPage(@Query('token') token: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicPage(request, reply);
    const link = String(token ?? '').slice(0, 200);
    const offer = await this.offer(link);
    if (!offer) return this.linkInvalid(reply, page);
    await this.sendForm(reply, page, link, offer);
  }

  @Post('accept')
  async accept(@Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = this.auth.publicForm(request, reply, form);
    const link = field(form, 'token', 200);
    const offer = await this.offer(link);
    if (!offer) return this.linkInvalid(reply, page);
    let user;
    try {
      user = await this.accounts.acceptInvitation(link, field(form, 'password', 129), page.lang);
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      if (error.reason === 'invalid_token' || error.reason === 'token_expired') return this.linkInvalid(reply, page);
      const key = error.reason === 'weak_password' ? 'errorPassword' : error.reason === 'email_taken' ? 'errorEmailTaken' : null;
      return this.sendForm(reply, page, link, offer, { tone: 'error', text: key ? signInText(page.lang, key) : error.message }, 400);
    }
    await this.auth.signIn(request, reply, user);
    await reply.redirect('/dashboard/test/home', 303);
  }

  /** The invitation of a link, or null for one that is unknown, used or expired. */
  private async offer(token: string): Promise<InvitationOffer | null> {
    try {
      return await this.accounts.invitationFor(token);
    } catch (error) {
      if (error instanceof AccountError) return null;
      throw error;
    }
  }

  private async sendForm(reply: FastifyReply, page: PageRequest, token: string, offer: InvitationOffer, notice: Notice = null, status = 200): Promise<void> {
    const invitation = { merchantName: offer.merchantName, role: roleName(page.lang, offer.role), email: offer.email };
    await sendPublicPage(reply, page, signInText(page.lang, 'invitationTitle', { merchant: offer.merchantName }), invitationForm(page, token, invitation, notice), status);
  }

  private async linkInvalid(reply: FastifyReply, page: PageRequest): Promise<void> {
    await sendPublicPage(reply, page, signInText(page.lang, 'linkInvalidTitle'), messageCard(page, 'linkInvalidTitle', 'linkInvalidBody'), 400);
  }
}
