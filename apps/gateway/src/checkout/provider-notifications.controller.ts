import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, RAW_BODY_PREFIX } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import { SessionsClient } from '../sessions-client/sessions.client';

/**
 * Lahza's notifications (DESIGN §7), public: the raw body and its `x-lahza-signature` go to sessions, which checks
 * the signature in constant time with the environment's key and then asks Lahza itself (a notification alone is
 * never trusted). A forged one is a 400 and changes nothing.
 */
@ApiExcludeController()
@Controller(RAW_BODY_PREFIX.slice(1, -1))
export class ProviderNotificationsController {
  constructor(private readonly sessions: SessionsClient) {}

  @Post('lahza/notifications')
  @HttpCode(200)
  async lahza(@Headers('x-lahza-signature') signature: string | undefined, @Req() request: FastifyRequest): Promise<{ received: true }> {
    if (!request.rawBody) throw new ApiError('invalid_request', 'A notification is a JSON body (Content-Type: application/json).');
    const { accepted } = await this.sessions.providerNotification(request.rawBody, signature ?? null, { correlationId: String(request.id) });
    if (!accepted) throw new ApiError('invalid_request', 'The notification signature does not verify.', 'x-lahza-signature');
    return { received: true };
  }
}
