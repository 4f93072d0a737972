import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@payments/platform';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { GatewayConfig } from '../config';
import { mailJson, renderMail, renderMailList } from './dev-mail-page';
import { MAIL_ID } from './mail-outbox';
import { MailOutboxRepository } from './mail-outbox.repository';

const MAX_LIST = 500;

function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    // Nothing from elsewhere and nothing run: the page's own style under this response's nonce, no script, no form.
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

const wantsJson = (format: unknown, accept: string | undefined) =>
  format === 'json' || (format === undefined && /\bapplication\/json\b/.test(accept ?? '') && !/\btext\/html\b/.test(accept ?? ''));

/**
 * The development mail page: the messages the gateway keeps instead of sending while MAIL_TRANSPORT=page
 * (`npm start`), as HTML or, with `?format=json` or `Accept: application/json`, as JSON. Absent (404) otherwise.
 */
@ApiExcludeController()
@Controller('dev/mail')
export class DevMailController {
  constructor(
    private readonly config: GatewayConfig,
    private readonly repository: MailOutboxRepository,
  ) {}

  @Get()
  async list(
    @Query('format') format: unknown,
    @Query('to') to: unknown,
    @Query('limit') limit: unknown,
    @Headers('accept') accept: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    this.requirePageTransport();
    const count = typeof limit === 'string' && /^\d{1,3}$/.test(limit) ? Math.min(Math.max(Number(limit), 1), MAX_LIST) : 100;
    const mails = await this.repository.list(count, typeof to === 'string' && to !== '' ? to.slice(0, 254) : undefined);
    if (wantsJson(format, accept)) return void (await reply.header('cache-control', 'no-store').send({ data: mails.map(mailJson) }));
    const nonce = randomBytes(16).toString('base64');
    await reply.headers(securityHeaders(nonce)).send(renderMailList(mails, nonce));
  }

  @Get(':id')
  async one(@Param('id') id: string, @Query('format') format: unknown, @Headers('accept') accept: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    this.requirePageTransport();
    const mail = MAIL_ID.test(id) ? await this.repository.find(id) : null;
    if (!mail) throw new ApiError('not_found', `No message ${id.slice(0, 80)}.`, 'id');
    if (wantsJson(format, accept)) return void (await reply.header('cache-control', 'no-store').send(mailJson(mail)));
    const nonce = randomBytes(16).toString('base64');
    await reply.headers(securityHeaders(nonce)).send(renderMail(mail, nonce));
  }

  private requirePageTransport(): void {
    // Only where mail is kept rather than sent (development): elsewhere the page does not exist.
    if (this.config.MAIL_TRANSPORT !== 'page') throw new ApiError('not_found', 'Not found.');
  }
}
