import { Controller, Get, Param, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../checkout/page/html';
import { DashboardAuth } from '../session/dashboard-auth';
import { DashboardExceptionFilter } from '../web/dashboard-exception.filter';
import { environmentOf } from '../web/environment-param';
import { frameText } from '../web/frame-messages';
import { sendPage } from '../web/respond';

/** The signed-in start page of an environment. */
@ApiExcludeController()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/:env')
export class HomeController {
  constructor(private readonly auth: DashboardAuth) {}

  @Get('home')
  async home(@Param('env') env: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const page = await this.auth.signedInPage(request, reply, environmentOf(env));
    if (!page) return;
    const t = (key: Parameters<typeof frameText>[1], vars?: Record<string, string>) => frameText(page.lang, key, vars);
    await sendPage(reply, page, 'home', t('homeTitle'), html`<h1>${t('homeTitle')}</h1><div class="card"><p>${t('homeBody', { merchant: page.user.merchant.name })}</p></div>`);
  }
}
