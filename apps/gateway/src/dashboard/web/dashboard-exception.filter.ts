import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ApiError } from '@payments/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DashboardAuth, FormRefused } from '../session/dashboard-auth';
import { sendMessage } from './respond';

/** A role that may not do what the request asks (a viewer refunding, a developer inviting, ...). */
export class RoleForbidden extends Error {
  constructor() {
    super('not allowed for this role');
  }
}

/**
 * Errors of the dashboard's routes as pages, never as the API's JSON: a refused form (CSRF, origin, signed out) is
 * 403 with nothing done, another merchant's or environment's id is 404, a service that did not answer is 503.
 */
@Catch()
export class DashboardExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  constructor(private readonly auth: DashboardAuth) {}

  async catch(error: unknown, host: ArgumentsHost): Promise<void> {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    const page = this.auth.publicPage(request, reply);
    if (error instanceof FormRefused) return sendMessage(reply, page, 403, 'formExpired');
    if (error instanceof RoleForbidden) return sendMessage(reply, page, 403, 'forbidden');
    if (error instanceof ApiError) {
      if (error.code === 'not_found') return sendMessage(reply, page, 404, 'notFound');
      if (error.code === 'service_unavailable') return sendMessage(reply, page, 503, 'unavailable');
    }
    if (error instanceof HttpException && error.getStatus() === 404) return sendMessage(reply, page, 404, 'notFound');
    this.logger.error({ err: error }, 'dashboard request failed');
    return sendMessage(reply, page, 500, 'unavailable');
  }
}
