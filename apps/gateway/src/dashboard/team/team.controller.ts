import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/account.error';
import { Accounts } from '../../accounts/accounts.service';
import { can } from '../../accounts/roles';
import { field } from '../developers/developer-forms';
import { DashboardAuth, type SignedInRequest } from '../session/dashboard-auth';
import { DashboardExceptionFilter, RoleForbidden } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { sendPage } from '../web/respond';
import { teamText } from './team-messages';
import { removeUserPage, teamNoticeOf, teamPage, teamPath, teamRefusal, type TeamNotice, type TeamView } from './team-pages';

type Form = Record<string, unknown> | undefined;

/**
 * The team page (DESIGN §8): the merchant's users and open invitations through the accounts' own rules (Accounts:
 * only an owner changes the team, the last owner stays). Everyone signed in sees it; a form of any other role is
 * refused 403 before anything is read or done. A user id of another merchant is 404.
 */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env/team')
export class TeamController {
  constructor(
    private readonly auth: DashboardAuth,
    private readonly accounts: Accounts,
  ) {}

  @Get()
  async view(@Param('env') env: string, @Query('done') done: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    await this.send(reply, page, { notice: teamNoticeOf(done) });
  }

  @Post('invitations')
  async invite(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.owner(request, reply, env, form);
    const values = { email: field(form, 'email', 254).trim(), role: field(form, 'role', 20) };
    try {
      await this.accounts.invite(page.user.merchantId, page.user.id, values.email, values.role);
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return this.refused(reply, page, error, 'invite', values);
    }
    await this.back(reply, page, 'invited');
  }

  @Post('invitations/cancel')
  async cancelInvitation(@Param('env') env: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.owner(request, reply, env, form);
    try {
      await this.accounts.cancelInvitation(page.user.merchantId, page.user.id, field(form, 'email', 254));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      // Already accepted, cancelled or expired: the page says so rather than a bare 404.
      if (error.reason === 'not_found') {
        return this.send(reply, page, { error: { form: 'invitations', message: teamText(page.lang, 'errorNoInvitation') } }, 409);
      }
      return this.refused(reply, page, error, 'invitations');
    }
    await this.back(reply, page, 'cancelled');
  }

  @Post('users/:userId/role')
  async changeRole(@Param('env') env: string, @Param('userId') userId: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.owner(request, reply, env, form);
    try {
      await this.accounts.changeRole(page.user.merchantId, page.user.id, userId.slice(0, 100), field(form, 'role', 20));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return this.refused(reply, page, error, 'users');
    }
    await this.back(reply, page, 'role_changed');
  }

  @Get('users/:userId/remove')
  async removeConfirm(@Param('env') env: string, @Param('userId') userId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    if (!can(page.user.role, 'manage_team')) throw new RoleForbidden();
    const user = (await this.accounts.listUsers(page.user.merchantId)).find((member) => member.id === userId);
    if (!user) throw notFound();
    await sendPage(reply, page, 'team', teamText(page.lang, 'removeTitle'), removeUserPage(page, user));
  }

  @Post('users/:userId/remove')
  async remove(@Param('env') env: string, @Param('userId') userId: string, @Body() form: Form, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.owner(request, reply, env, form);
    try {
      await this.accounts.removeUser(page.user.merchantId, page.user.id, userId.slice(0, 100));
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return this.refused(reply, page, error, 'users');
    }
    // An owner who removed themselves has no session any more: the next page sends them to sign in.
    await this.back(reply, page, 'removed');
  }

  /** A form of a signed-in owner: origin, token and role checked before anything is read or done. */
  private async owner(request: FastifyRequest, reply: FastifyReply, env: string, form: Form): Promise<SignedInRequest> {
    const page = await this.auth.signedInForm(request, reply, environmentOf(env), form);
    if (!can(page.user.role, 'manage_team')) throw new RoleForbidden();
    return page;
  }

  /** The domain's refusal shown on the page (409 for the last owner, else 400); not found is 404, forbidden 403. */
  private async refused(reply: FastifyReply, page: SignedInRequest, error: AccountError, form: 'invite' | 'users' | 'invitations', invite?: TeamView['invite']): Promise<void> {
    if (error.reason === 'not_found') throw notFound();
    // The acting owner was demoted or removed a moment ago by another owner.
    if (error.reason === 'forbidden') throw new RoleForbidden();
    const message = teamRefusal(page.lang, error);
    if (message === null) throw error;
    const status = error.reason === 'last_owner' ? 409 : 400;
    await this.send(reply, page, { error: { form, message }, ...(invite ? { invite } : {}) }, status);
  }

  private async send(reply: FastifyReply, page: SignedInRequest, view: TeamView, status = 200): Promise<void> {
    const [users, invitations] = await Promise.all([this.accounts.listUsers(page.user.merchantId), this.accounts.listInvitations(page.user.merchantId)]);
    await sendPage(reply, page, 'team', teamText(page.lang, 'title'), teamPage(page, users, invitations, view), status);
  }

  private async back(reply: FastifyReply, page: SignedInRequest, notice: TeamNotice): Promise<void> {
    await reply.redirect(`${teamPath(page)}?done=${notice}`, 303);
  }
}

function notFound(): ApiError {
  return new ApiError('not_found', 'Not found.');
}
